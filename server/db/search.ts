import { gte, lt, type AnyColumn, type SQL } from "drizzle-orm";
import { z } from "zod";

/** An ILIKE pattern for text that contains `text`: the `%`, `_` and `\` typed in a search box match themselves. */
export const containing = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** A day in a list's filters (`2026-11-25`); anything else is no filter. */
export const dayParam = z
  .string()
  .regex(/^\d{4}-\d\d-\d\d$/)
  .refine((value) => !Number.isNaN(Date.parse(value)))
  .optional()
  .catch(undefined);

/** The conditions for a time column within the days from `from` to `to` (UTC, both included). */
export function withinDays(column: AnyColumn, { from, to }: { from?: string; to?: string }): SQL[] {
  const where: SQL[] = [];
  if (from) where.push(gte(column, new Date(`${from}T00:00:00Z`)));
  if (to) where.push(lt(column, new Date(Date.parse(`${to}T00:00:00Z`) + 86_400_000)));
  return where;
}
