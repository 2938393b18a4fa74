import type { Context } from "hono";
import { serverT } from "#server/i18n/translations.ts";
import { LOCALE_TAGS, localeOfPath, localizePath, type Locale } from "#common/locales.ts";

export interface ShortPageSite {
  name: string;
  primaryColor: string;
}

interface ShortPage {
  status: 429 | 503;
  /** The sentence under the status, in the common namespace. */
  messageKey: string;
  retryAfter: number;
  site: ShortPageSite;
}

const made = new Map<string, string>();

/**
 * A page answered instead of the one asked for when the process will not render it now (too many pages from one
 * address, or too busy): the status, one sentence in the path's language, a retry link and the way home. It needs
 * nothing but the translations (no database, no React), is made once per status, language and site, and asks the
 * client to come back after `Retry-After` seconds.
 */
export function shortPage(c: Context, { status, messageKey, retryAfter, site }: ShortPage): Response {
  const locale = localeOfPath(c.req.path);
  const key = `${status}|${messageKey}|${locale}|${site.name}|${site.primaryColor}`;
  let html = made.get(key);
  if (!html) {
    html = page(locale, status, messageKey, site);
    made.set(key, html);
  }
  return new Response(c.req.method === "HEAD" ? null : html, {
    status,
    headers: {
      "Content-Type": "text/html; charset=utf-8",
      "Cache-Control": "no-store",
      "Retry-After": String(retryAfter),
    },
  });
}

function page(locale: Locale, status: number, messageKey: string, site: ShortPageSite): string {
  const t = serverT(locale, ["common"]);
  const e = escapeHtml;
  return `<!DOCTYPE html>
<html lang="${LOCALE_TAGS[locale]}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex">
<title>${e(t("error.metaTitle", { status }))} · ${e(site.name)}</title>
<style>
:root{color-scheme:light dark;font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",sans-serif}
body{margin:0;min-height:100vh;display:grid;place-items:center;background:Canvas;color:CanvasText}
main{max-width:28rem;padding:2rem 1.5rem;text-align:center}
h1{font-size:3rem;margin:0 0 .5rem;font-weight:600}
p{font-size:1.05rem;line-height:1.6;margin:0 0 1.5rem;opacity:.8}
a{display:inline-block;margin:.25rem;padding:.5rem 1.1rem;border-radius:6px;border:1px solid currentColor;color:inherit;text-decoration:none}
a.primary{background:${e(site.primaryColor)};border-color:${e(site.primaryColor)};color:#fff}
</style></head>
<body><main class="error-page" data-status="${status}"><h1>${status}</h1><p>${e(t(messageKey))}</p>
<a class="primary" href="">${e(t("action.retry"))}</a><a href="${e(localizePath("/", locale))}">${e(t("action.backHome"))}</a></main></body></html>
`;
}

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch]!);
