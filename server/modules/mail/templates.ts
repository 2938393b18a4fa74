import type { ResourceLanguage } from "i18next";
import { createInstance } from "i18next";
import { DEFAULT_LOCALE, isLocale, type Locale } from "#common/locales.ts";
import { escapeHtml } from "#common/html.ts";

const files = import.meta.glob<ResourceLanguage>("/locales/*/email.json", { eager: true, import: "default" });
const bundles = new Map<string, ResourceLanguage>();
for (const [path, content] of Object.entries(files)) bundles.set(path.split("/")[2]!, content);

export const MAIL_KINDS = [
  "verifyEmail",
  "resetPassword",
  "passwordChanged",
  "existingAccount",
  "signInAttempts",
  "review.cleared",
  "review.hidden",
  "review.deleted",
  "review.banned",
  "billing.paymentFailed",
  "billing.actionRequired",
  "billing.topUpReceipt",
  "billing.topUpFailed",
] as const;
export type MailKind = (typeof MAIL_KINDS)[number];

export interface MailContent {
  subject: string;
  text: string;
  html: string;
}

export interface RenderOptions {
  kind: MailKind;
  locale: string | null | undefined;
  site: { name: string; url: string; supportEmail: string };
  name: string;
  /** The one link the message is about (verify, reset, sign in). */
  url: string;
  /** What the message says beside the site and the name (a plan, a date). */
  values?: Record<string, string>;
}

function translator(locale: Locale) {
  const i18n = createInstance();
  void i18n.init({
    lng: locale,
    fallbackLng: DEFAULT_LOCALE,
    resources: Object.fromEntries([...bundles].map(([lng, bundle]) => [lng, { email: bundle }])),
    ns: ["email"],
    defaultNS: "email",
    initAsync: false,
    interpolation: { escapeValue: false },
  });
  return i18n.t.bind(i18n);
}

/** A message in the recipient's language: a plain-text part and a simple, client-safe HTML part. */
export function renderMail({ kind, locale, site, name, url, values }: RenderOptions): MailContent {
  const lng = isLocale(locale) ? locale : DEFAULT_LOCALE;
  const t = translator(lng);
  const vars = { ...values, site: site.name, name: name || t("friend"), support: site.supportEmail };
  const subject = t(`${kind}.subject`, vars);
  const paragraphs = (t(`${kind}.body`, { ...vars, returnObjects: true }) as unknown as string[]).map((p) => String(p));
  const action = t(`${kind}.action`, vars);
  const greeting = t("greeting", vars);
  const footer = t("footer", vars);

  const text = [greeting, "", ...paragraphs.flatMap((p) => [p, ""]), `${action}: ${url}`, "", "—", footer].join("\n");
  const html = `<!doctype html>
<html lang="${lng}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(subject)}</title></head>
<body style="margin:0;padding:24px;background:#f5f5f7;font-family:-apple-system,Segoe UI,Roboto,Helvetica,Arial,sans-serif;color:#1f1f1f">
<table role="presentation" width="100%" style="max-width:560px;margin:0 auto;background:#ffffff;border-radius:12px;padding:32px">
<tr><td>
<p style="font-size:20px;font-weight:600;margin:0 0 24px">${escapeHtml(site.name)}</p>
<p style="margin:0 0 16px">${escapeHtml(greeting)}</p>
${paragraphs.map((p) => `<p style="margin:0 0 16px;line-height:1.5">${escapeHtml(p)}</p>`).join("\n")}
<p style="margin:24px 0"><a href="${escapeHtml(url)}" style="display:inline-block;background:#4f46e5;color:#ffffff;text-decoration:none;padding:12px 20px;border-radius:8px;font-weight:600">${escapeHtml(action)}</a></p>
<p style="margin:0 0 16px;font-size:13px;color:#666;word-break:break-all">${escapeHtml(url)}</p>
<p style="margin:24px 0 0;font-size:12px;color:#888">${escapeHtml(footer)}</p>
</td></tr></table></body></html>
`;
  return { subject, text, html };
}
