import { and, eq, gte, sql } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { creditEntry } from "#server/db/schema/index.ts";

export interface DayUsage {
  /** The UTC day, `YYYY-MM-DD`. */
  date: string;
  credits: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Credits a user spent on jobs per UTC day over the last `days` days, oldest first, days without spending included
 * as 0. Spending is what captures charged; holds still open and released holds cost nothing.
 */
export async function creditsUsedByDay(options: {
  db: Db;
  userId: string;
  days?: number;
  now?: Date;
}): Promise<DayUsage[]> {
  const days = options.days ?? 30;
  const now = options.now ?? new Date();
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const first = new Date(today - (days - 1) * DAY_MS);
  const day = sql<string>`to_char(${creditEntry.createdAt} at time zone 'UTC', 'YYYY-MM-DD')`;
  const rows = await options.db
    .select({ day, spent: sql<string>`sum(-${creditEntry.amount})` })
    .from(creditEntry)
    .where(
      and(eq(creditEntry.userId, options.userId), eq(creditEntry.kind, "capture"), gte(creditEntry.createdAt, first)),
    )
    .groupBy(day);
  const spent = new Map(rows.map((r) => [r.day, Number(r.spent)]));
  return Array.from({ length: days }, (_, i) => {
    const date = new Date(first.getTime() + i * DAY_MS).toISOString().slice(0, 10);
    return { date, credits: spent.get(date) ?? 0 };
  });
}
