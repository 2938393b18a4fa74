/** The orders the console's user list can be sorted in. */
export const USER_SORTS = ["newest", "oldest", "email", "balance"] as const;

/** The areas an audited action belongs to: the part of its name before the dot. */
export const ACTION_AREAS = [
  "role",
  "user",
  "credits",
  "codes",
  "orders",
  "generations",
  "models",
  "settings",
] as const;

/** The periods the console's figures cover. */
export const PERIODS = ["24h", "7d", "30d", "90d"] as const;
export type Period = (typeof PERIODS)[number];

/** The period asked for in a page's address (`?period=30d`), 7 days when none or another is asked for. */
export function periodOf(asked: string | null): Period {
  return PERIODS.includes(asked as Period) ? (asked as Period) : "7d";
}

const PERIOD_HOURS: Record<Period, number> = { "24h": 24, "7d": 24 * 7, "30d": 24 * 30, "90d": 24 * 90 };

/** When a period ending at `now` starts. */
export function periodStart(period: Period, now: Date): Date {
  return new Date(now.getTime() - PERIOD_HOURS[period] * 3_600_000);
}
