import { useSyncExternalStore } from "react";
import { formatDate, formatRelative } from "#common/format.ts";
import type { Locale } from "#common/locales.ts";

const noSubscription = () => () => {};

/** False in the server's HTML and while hydrating, true once the page runs in the browser. */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );
}

/**
 * A moment as people say it: "3 minutes ago" once the page runs in the browser (`hydrated`); the date itself in the
 * server's HTML and while hydrating, since the two clocks never agree to the second.
 */
export function momentOf(locale: Locale, date: Date | string, hydrated: boolean): string {
  return hydrated ? formatRelative(locale, date) : formatDate(locale, date);
}

/** `momentOf` in a `<time>` element, with the full date as its title. */
export function RelativeTime({ locale, date }: { locale: Locale; date: string }) {
  const hydrated = useHydrated();
  return (
    <time dateTime={date} title={formatDate(locale, date)}>
      {momentOf(locale, date, hydrated)}
    </time>
  );
}
