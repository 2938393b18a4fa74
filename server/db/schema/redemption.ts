import { sql } from "drizzle-orm";
import { bigint, check, index, integer, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { user } from "./auth.ts";

/**
 * A batch of codes created together: its name, what each code is worth, how often each may be used, when they
 * expire, and whether an administrator withdrew it (`disabledAt`: none of its codes can be redeemed after that).
 */
export const redemptionBatch = pgTable(
  "redemption_batch",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    name: text("name").notNull(),
    credits: bigint("credits", { mode: "number" }).notNull(),
    maxUses: integer("max_uses").notNull(),
    codeCount: integer("code_count").notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true }),
    /** Days the credits of a redeemed code last; 0: they never expire. */
    creditsExpireDays: integer("credits_expire_days").notNull().default(0),
    disabledAt: timestamp("disabled_at", { withTimezone: true }),
    createdBy: text("created_by"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("redemption_batch_created_idx").on(t.createdAt.desc())],
);

/**
 * A code worth `credits`, redeemable `maxUses` times in all (once per account) until `expiresAt`. Only the SHA-256
 * of the code is stored: the codes themselves are printed once, when an admin creates the batch.
 */
export const redemptionCode = pgTable(
  "redemption_code",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    codeHash: text("code_hash").notNull().unique(),
    /** The first characters, to recognise a code in lists without revealing it. */
    hint: text("hint").notNull(),
    batch: text("batch").notNull(),
    batchId: uuid("batch_id")
      .notNull()
      .references(() => redemptionBatch.id),
    credits: bigint("credits", { mode: "number" }).notNull(),
    maxUses: integer("max_uses").notNull(),
    uses: integer("uses").notNull().default(0),
    expiresAt: timestamp("expires_at", { withTimezone: true }),
    createdBy: text("created_by"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check("redemption_code_credits_positive", sql`${t.credits} > 0`),
    check("redemption_code_uses_within_max", sql`${t.maxUses} > 0 and ${t.uses} >= 0 and ${t.uses} <= ${t.maxUses}`),
    index("redemption_code_batch_idx").on(t.batch),
    index("redemption_code_batch_id_idx").on(t.batchId),
  ],
);

/** Who redeemed which code: at most once per account, enforced by the key. */
export const redemption = pgTable(
  "redemption",
  {
    codeId: uuid("code_id")
      .notNull()
      .references(() => redemptionCode.id),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.codeId, t.userId] })],
);
