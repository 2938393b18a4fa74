import { sql } from "drizzle-orm";
import {
  bigint,
  bigserial,
  check,
  index,
  integer,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { user } from "./auth.ts";
import { list } from "./sql-list.ts";

export const CREDIT_ENTRY_KINDS = [
  "signup_bonus",
  "purchase",
  "hold",
  "capture",
  "release",
  "refund",
  "admin_adjustment",
  "redemption",
  "chargeback",
  "chargeback_reversal",
  "subscription",
  "expiry",
] as const;
export type CreditEntryKind = (typeof CREDIT_ENTRY_KINDS)[number];

export const HOLD_STATUSES = ["open", "captured", "released"] as const;
export type HoldStatus = (typeof HOLD_STATUSES)[number];

/**
 * One row per user: the settled balance and the part of it held for jobs in flight. Available = balance - held.
 * The checks are the backstop: no code path can leave a balance negative or hold more than there is.
 */
export const creditBalance = pgTable(
  "credit_balance",
  {
    userId: text("user_id")
      .primaryKey()
      .references(() => user.id, { onDelete: "cascade" }),
    balance: bigint("balance", { mode: "number" }).notNull().default(0),
    held: bigint("held", { mode: "number" }).notNull().default(0),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check("credit_balance_not_negative", sql`${t.balance} >= 0`),
    check("credit_balance_held_within_balance", sql`${t.held} >= 0 and ${t.held} <= ${t.balance}`),
  ],
);

/** Credits reserved for one job: open until captured (charged, possibly for less) or released, exactly once. */
export const creditHold = pgTable(
  "credit_hold",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    userId: text("user_id").references(() => user.id, { onDelete: "set null" }),
    amount: bigint("amount", { mode: "number" }).notNull(),
    status: text("status").$type<HoldStatus>().notNull().default("open"),
    captured: bigint("captured", { mode: "number" }),
    reference: text("reference"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    settledAt: timestamp("settled_at", { withTimezone: true }),
  },
  (t) => [
    check("credit_hold_amount_positive", sql`${t.amount} > 0`),
    check("credit_hold_status", sql`${t.status} in (${list(HOLD_STATUSES)})`),
    check(
      "credit_hold_settlement",
      sql`(${t.status} = 'open' and ${t.captured} is null and ${t.settledAt} is null)
        or (${t.status} = 'released' and ${t.captured} is null and ${t.settledAt} is not null)
        or (${t.status} = 'captured' and ${t.captured} between 0 and ${t.amount} and ${t.settledAt} is not null)`,
    ),
    index("credit_hold_user_status_idx").on(t.userId, t.status),
  ],
);

/**
 * The append-only ledger. `amount` moves the balance, `heldChange` moves the held part; a hold is
 * (0, +n), its capture (-charged, -n), its release (0, -n). The balance always equals the sum of `amount`.
 * Deleting a user keeps the entries without the user (accounting), which is the only update a trigger allows.
 */
export const creditEntry = pgTable(
  "credit_entry",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    userId: text("user_id").references(() => user.id, { onDelete: "set null" }),
    kind: text("kind").$type<CreditEntryKind>().notNull(),
    amount: bigint("amount", { mode: "number" }).notNull(),
    heldChange: bigint("held_change", { mode: "number" }).notNull().default(0),
    balanceAfter: bigint("balance_after", { mode: "number" }).notNull(),
    holdId: uuid("hold_id").references(() => creditHold.id),
    /** What caused it: `order:<id>`, `job:<id>`, `code:<id>`, `admin:<id>`. */
    reference: text("reference"),
    idempotencyKey: text("idempotency_key").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("credit_entry_idempotency_key_idx").on(t.idempotencyKey),
    index("credit_entry_user_created_idx").on(t.userId, t.createdAt),
    // The movements of a period, by kind (the console's overview).
    index("credit_entry_created_idx").on(t.createdAt),
    // A hold is opened once and settled (captured or released) once: the database refuses a second settlement.
    uniqueIndex("credit_entry_hold_opened_once_idx")
      .on(t.holdId)
      .where(sql`${t.kind} = 'hold'`),
    uniqueIndex("credit_entry_hold_settled_once_idx")
      .on(t.holdId)
      .where(sql`${t.kind} in ('capture', 'release')`),
    check("credit_entry_kind", sql`${t.kind} in (${list(CREDIT_ENTRY_KINDS)})`),
    check("credit_entry_balance_after_not_negative", sql`${t.balanceAfter} >= 0`),
  ],
);

/**
 * Granted credits kept in lots: each grant (a purchase, a period's subscription, a bonus, a code, an adjustment) is
 * one, with what is left of it and when that expires (never when null). The lots' `remaining` always add up to the
 * balance: a charge or a take-back takes from the lot that expires first, and the hourly expiry takes what is due
 * from the balance as an `expiry` entry. Held credits stay in their lots until the hold is settled.
 */
export const creditLot = pgTable(
  "credit_lot",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    /** The kind of the entry that granted it (`opening`: the balance an account had when lots began). */
    source: text("source").notNull(),
    /** What granted it, as its entry's reference (`order:<id>`, `code:<id>`…). */
    reference: text("reference"),
    amount: bigint("amount", { mode: "number" }).notNull(),
    remaining: bigint("remaining", { mode: "number" }).notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true }),
    /** At its expiry, up to this many of what is left carry over one more period (a plan's rollover). */
    rollover: bigint("rollover", { mode: "number" }).notNull().default(0),
    /** How long that period is, in seconds (the one the lot was granted for). */
    periodSeconds: integer("period_seconds"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    // The lots a spend takes from, soonest-expiring first.
    index("credit_lot_user_open_idx")
      .on(t.userId, t.expiresAt)
      .where(sql`${t.remaining} > 0`),
    // The lots due to expire, for the hourly expiry.
    index("credit_lot_due_idx")
      .on(t.expiresAt)
      .where(sql`${t.remaining} > 0 and ${t.expiresAt} is not null`),
    check(
      "credit_lot_amounts",
      sql`${t.amount} > 0 and ${t.remaining} between 0 and ${t.amount} and ${t.rollover} >= 0`,
    ),
  ],
);
