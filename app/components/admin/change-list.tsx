import { useTranslation } from "react-i18next";
import { formatDate, formatNumber } from "#common/format.ts";
import type { Locale } from "#common/locales.ts";

type Fields = Record<string, unknown>;

const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

const asFields = (value: unknown): Fields =>
  value && typeof value === "object" && !Array.isArray(value) ? (value as Fields) : {};

/** What an audited action changed: each field with its value before and after (one side alone when only one has it). */
export function ChangeList({ before, after, locale }: { before: unknown; after: unknown; locale: Locale }) {
  const { t } = useTranslation("admin");
  const was = asFields(before);
  const now = asFields(after);
  const keys = [...new Set([...Object.keys(was), ...Object.keys(now)])];
  if (keys.length === 0) return <>—</>;
  const show = (value: unknown) => {
    if (value === null || value === undefined) return "—";
    if (typeof value === "boolean") return t(value ? "filters.yes" : "filters.no");
    if (typeof value === "number") return formatNumber(locale, value);
    if (value === "admin" || value === "user") return t(`users.roles.${value}`);
    if (typeof value === "string" && ISO_TIME.test(value)) return formatDate(locale, value);
    return typeof value === "string" ? value : <code className="admin-json">{JSON.stringify(value)}</code>;
  };
  return (
    <dl className="admin-changes">
      {keys.map((key) => (
        <div key={key}>
          <dt>{t(`audit.fields.${key}`, { defaultValue: key })}</dt>
          <dd>
            {key in was && key in now ? (
              <>
                {show(was[key])} → {show(now[key])}
              </>
            ) : (
              show(key in now ? now[key] : was[key])
            )}
          </dd>
        </div>
      ))}
    </dl>
  );
}
