import { useSyncExternalStore } from "react";
import { formatDate, formatRelative } from "#common/format.ts";
import type { Locale } from "#common/locales.ts";

const noSubscription = () => () => {};

/**
 * "3 minutes ago" once the page runs in the browser; the date itself in the server's HTML and while hydrating,
 * since the two clocks never agree to the second.
 */
export function RelativeTime({ locale, date }: { locale: Locale; date: string }) {
  const hydrated = useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );
  return (
    <time dateTime={date} title={formatDate(locale, date)}>
      {hydrated ? formatRelative(locale, date) : formatDate(locale, date)}
    </time>
  );
}
