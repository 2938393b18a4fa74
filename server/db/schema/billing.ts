import { sql } from "drizzle-orm";
import { check, integer, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import type { Locale } from "#common/locales.ts";
import type { PlanUnlocks } from "#common/plans.ts";

/**
 * A plan an operator sells by subscription (or the free one every account is on): its prices per currency and
 * interval (minor units), the credits each period grants and how many roll over, and what it unlocks. Archived plans
 * are sold no more; their subscribers keep them.
 */
export const plan = pgTable(
  "plan",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    names: jsonb("names").$type<Partial<Record<Locale, string>>>().notNull().default({}),
    description: jsonb("description").$type<Partial<Record<Locale, string>>>().notNull().default({}),
    /** Per interval, per currency (lower case): the amount in the currency's minor units. */
    monthly: jsonb("monthly").$type<Record<string, number>>().notNull().default({}),
    yearly: jsonb("yearly").$type<Record<string, number>>().notNull().default({}),
    /** Credits granted each period (a yearly plan's too: each month). */
    credits: integer("credits").notNull().default(0),
    /** At most this many unused credits carry over to the next period; 0: none. */
    rollover: integer("rollover").notNull().default(0),
    unlocks: jsonb("unlocks").$type<PlanUnlocks>().notNull(),
    trialDays: integer("trial_days").notNull().default(0),
    position: integer("position").notNull().default(0),
    archivedAt: timestamp("archived_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check("plan_id", sql`${t.id} ~ '^[a-z0-9-]{1,32}$'`),
    check("plan_credits", sql`${t.credits} >= 0 and ${t.rollover} >= 0 and ${t.trialDays} between 0 and 365`),
  ],
);
