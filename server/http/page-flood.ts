import type { Context } from "hono";
import { serverT } from "#server/i18n/translations.ts";
import { LOCALE_TAGS, localeOfPath, localizePath, type Locale } from "#common/locales.ts";

const WINDOW_MS = 60_000;

/**
 * The bound on page renders per client address: a one-minute window from each address's first render, counted in
 * this process's memory. It is a flood guard, far above what a person browsing asks for, so a count per process
 * (not shared between instances, forgotten on restart) is enough, and it costs one map lookup per render. Windows
 * that have ended are swept once a minute, so only the addresses seen lately are kept.
 */
export class PageFloodGuard {
  private readonly windows = new Map<string, { count: number; endsAt: number }>();
  private nextSweep = 0;
  private readonly maxPerMinute: number;

  constructor(maxPerMinute: number) {
    this.maxPerMinute = maxPerMinute;
  }

  /** Counts one render for `address`; past the bound, the seconds until its window ends (otherwise 0). */
  take(address: string, now = Date.now()): number {
    if (this.maxPerMinute <= 0) return 0;
    if (now >= this.nextSweep) {
      for (const [key, window] of this.windows) if (window.endsAt <= now) this.windows.delete(key);
      this.nextSweep = now + WINDOW_MS;
    }
    let window = this.windows.get(address);
    if (!window || window.endsAt <= now) {
      window = { count: 0, endsAt: now + WINDOW_MS };
      this.windows.set(address, window);
    }
    window.count++;
    if (window.count <= this.maxPerMinute) return 0;
    return Math.max(1, Math.ceil((window.endsAt - now) / 1000));
  }
}

const pages = new Map<string, string>();

/** The 429 answer to a page asked for too often: a small page in the path's language, made once per language. */
export function tooManyPages(c: Context, retryAfter: number, site: { name: string; primaryColor: string }): Response {
  const locale = localeOfPath(c.req.path);
  const key = `${locale}|${site.name}|${site.primaryColor}`;
  let html = pages.get(key);
  if (!html) {
    html = tooManyPage(locale, site);
    pages.set(key, html);
  }
  return new Response(c.req.method === "HEAD" ? null : html, {
    status: 429,
    headers: {
      "Content-Type": "text/html; charset=utf-8",
      "Cache-Control": "no-store",
      "Retry-After": String(retryAfter),
    },
  });
}

function tooManyPage(locale: Locale, site: { name: string; primaryColor: string }): string {
  const t = serverT(locale, ["common"]);
  const e = escapeHtml;
  return `<!DOCTYPE html>
<html lang="${LOCALE_TAGS[locale]}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex">
<title>${e(t("error.metaTitle", { status: 429 }))} · ${e(site.name)}</title>
<style>
:root{color-scheme:light dark;font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",sans-serif}
body{margin:0;min-height:100vh;display:grid;place-items:center;background:Canvas;color:CanvasText}
main{max-width:28rem;padding:2rem 1.5rem;text-align:center}
h1{font-size:3rem;margin:0 0 .5rem;font-weight:600}
p{font-size:1.05rem;line-height:1.6;margin:0 0 1.5rem;opacity:.8}
a{display:inline-block;margin:.25rem;padding:.5rem 1.1rem;border-radius:6px;border:1px solid currentColor;color:inherit;text-decoration:none}
a.primary{background:${e(site.primaryColor)};border-color:${e(site.primaryColor)};color:#fff}
</style></head>
<body><main class="error-page" data-status="429"><h1>429</h1><p>${e(t("error.tooMany"))}</p>
<a class="primary" href="">${e(t("action.retry"))}</a><a href="${e(localizePath("/", locale))}">${e(t("action.backHome"))}</a></main></body></html>
`;
}

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch]!);
