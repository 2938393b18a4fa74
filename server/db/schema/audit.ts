import { bigint, index, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/**
 * What administrators did, from the console or the command line: who (an account, or `cli`), what, to what, the
 * state before and after, why, and from where. Append-only: the database refuses every update and delete.
 */
export const adminAction = pgTable(
  "admin_action",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    /** The acting account's id; null for the command line. Kept as text: the log outlives accounts. */
    actorId: text("actor_id"),
    /** How the actor is shown: an e-mail address, or `cli`. */
    actor: text("actor").notNull(),
    /** `role.grant`, `role.revoke`, `user.ban`, `user.unban`, `credits.adjust`, `codes.create`, … */
    action: text("action").notNull(),
    targetType: text("target_type").notNull(),
    targetId: text("target_id"),
    /** How the target is shown (an e-mail address, a batch name), as it was then. */
    targetLabel: text("target_label"),
    before: jsonb("before"),
    after: jsonb("after"),
    reason: text("reason"),
    /** The client's address for console actions; null for the command line. */
    ip: text("ip"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("admin_action_created_idx").on(t.createdAt.desc()),
    index("admin_action_target_idx").on(t.targetType, t.targetId, t.createdAt.desc()),
  ],
);

export type AdminAction = typeof adminAction.$inferSelect;
