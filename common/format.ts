import { LOCALE_TAGS, type Locale } from "#common/locales.ts";

// Intl formatters are costly to build and safe to share: one per locale and options.
const cache = new Map<string, Intl.NumberFormat | Intl.DateTimeFormat | Intl.RelativeTimeFormat>();
function cached<T extends Intl.NumberFormat | Intl.DateTimeFormat | Intl.RelativeTimeFormat>(
  key: string,
  make: () => T,
): T {
  let formatter = cache.get(key) as T | undefined;
  if (!formatter) {
    formatter = make();
    cache.set(key, formatter);
  }
  return formatter;
}

/** -0 as 0 (`-0 === 0`, so this returns the literal). */
const unsigned = (value: number) => (value === 0 ? 0 : value);

/**
 * A number in the reader's language. -0 is written as 0, here and in money: JSON has no -0, so a page's data would
 * bring the browser a 0 where the server had written "-0", and the page would not hydrate.
 */
export function formatNumber(locale: Locale, value: number, options: Intl.NumberFormatOptions = {}): string {
  const tag = LOCALE_TAGS[locale];
  return cached(`n|${tag}|${JSON.stringify(options)}`, () => new Intl.NumberFormat(tag, options)).format(
    unsigned(value),
  );
}

/** Money from an amount in minor units (cents), as payment providers report it. */
export function formatMoney(locale: Locale, amountMinor: number, currency: string): string {
  const tag = LOCALE_TAGS[locale];
  const code = currency.toUpperCase();
  const formatter = cached(`m|${tag}|${code}`, () => new Intl.NumberFormat(tag, { style: "currency", currency: code }));
  const digits = formatter.resolvedOptions().maximumFractionDigits ?? 2;
  return formatter.format(unsigned(amountMinor / 10 ** digits));
}

/** A date (and time, unless `dateOnly`) in UTC, so that the server's and the browser's renders agree. */
export function formatDate(locale: Locale, date: Date | string | number, { dateOnly = false } = {}): string {
  const tag = LOCALE_TAGS[locale];
  const options: Intl.DateTimeFormatOptions = dateOnly
    ? { dateStyle: "medium", timeZone: "UTC" }
    : { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" };
  return cached(`d|${tag}|${dateOnly}`, () => new Intl.DateTimeFormat(tag, options)).format(new Date(date));
}

/** A day of the month with the month's short name ("Mar 5", "5 mars"), for a date-only string such as "2026-03-05". */
export function formatDayMonth(locale: Locale, day: string): string {
  const tag = LOCALE_TAGS[locale];
  return cached(
    `dm|${tag}`,
    () => new Intl.DateTimeFormat(tag, { month: "short", day: "numeric", timeZone: "UTC" }),
  ).format(new Date(`${day}T00:00:00Z`));
}

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ["year", 365 * 24 * 3600],
  ["month", 30 * 24 * 3600],
  ["week", 7 * 24 * 3600],
  ["day", 24 * 3600],
  ["hour", 3600],
  ["minute", 60],
  ["second", 1],
];

/** "3 minutes ago", "in 2 days": the largest unit that fits. */
export function formatRelative(locale: Locale, date: Date | string | number, now: Date = new Date()): string {
  const tag = LOCALE_TAGS[locale];
  const formatter = cached(`r|${tag}`, () => new Intl.RelativeTimeFormat(tag, { numeric: "auto" }));
  const seconds = Math.round((new Date(date).getTime() - now.getTime()) / 1000);
  for (const [unit, size] of UNITS) {
    if (Math.abs(seconds) >= size || unit === "second") return formatter.format(Math.round(seconds / size), unit);
  }
  return formatter.format(0, "second");
}

/** The price of one unit when `amountMinor` buys `units`: two more decimals than the currency uses, at most. */
export function formatUnitPrice(locale: Locale, amountMinor: number, units: number, currency: string): string {
  const tag = LOCALE_TAGS[locale];
  const code = currency.toUpperCase();
  const digits =
    cached(
      `m|${tag}|${code}`,
      () => new Intl.NumberFormat(tag, { style: "currency", currency: code }),
    ).resolvedOptions().maximumFractionDigits ?? 2;
  const formatter = cached(
    `u|${tag}|${code}`,
    () => new Intl.NumberFormat(tag, { style: "currency", currency: code, maximumFractionDigits: digits + 2 }),
  );
  return formatter.format(amountMinor / units / 10 ** digits);
}

/** A duration in seconds as the reader writes it: seconds under a minute ("12 s"), minutes above ("1.5 min"). */
export function formatSeconds(locale: Locale, seconds: number): string {
  const minutes = seconds >= 60;
  return formatNumber(locale, minutes ? seconds / 60 : seconds, {
    style: "unit",
    unit: minutes ? "minute" : "second",
    unitDisplay: "short",
    maximumFractionDigits: minutes || seconds < 10 ? 1 : 0,
  });
}

/** How many decimals a currency's major unit has (2 for USD, 0 for JPY); a code Intl does not know throws. */
export function currencyDigits(currency: string): number {
  const code = currency.toUpperCase();
  return (
    cached(`m|en|${code}`, () => new Intl.NumberFormat("en", { style: "currency", currency: code })).resolvedOptions()
      .maximumFractionDigits ?? 2
  );
}

/** An amount in minor units as a plain decimal in major units ("20.00", "500" in yen), for structured data. */
export function decimalAmount(amountMinor: number, currency: string): string {
  const digits = currencyDigits(currency);
  return (amountMinor / 10 ** digits).toFixed(digits);
}

/** A price typed in major units ("20", "19.99", "500" in yen) in minor units; null when it is not one. */
export function minorAmount(decimal: string, currency: string): number | null {
  let digits: number;
  try {
    digits = currencyDigits(currency);
  } catch {
    return null;
  }
  const match = /^(\d{1,9})(?:[.,](\d+))?$/.exec(decimal.trim());
  if (!match || (match[2]?.length ?? 0) > digits) return null;
  return Number(match[1]) * 10 ** digits + Number((match[2] ?? "").padEnd(digits, "0") || 0);
}
