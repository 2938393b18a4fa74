import { sql } from "drizzle-orm";
import { check, index, integer, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { user } from "./auth.ts";
import { generation } from "./generations.ts";

/** A like: one per account and result, undone by deleting it; `like_tally` counts them. */
export const generationLike = pgTable(
  "generation_like",
  {
    generationId: uuid("generation_id")
      .notNull()
      .references(() => generation.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.generationId, t.userId] }),
    // What an account liked, newest first.
    index("generation_like_user_idx").on(t.userId, t.createdAt.desc()),
  ],
);

/**
 * A result's likes, counted in the like's own statement. A narrow row of its own, apart from `generation`: a like
 * updates it in place (no index holds the count), where the result's row would have been rewritten with all its
 * indexes; `generation.like_rank` follows it on a doubling scale for the trending order. No row: no likes.
 */
export const likeTally = pgTable(
  "like_tally",
  {
    generationId: uuid("generation_id")
      .primaryKey()
      .references(() => generation.id, { onDelete: "cascade" }),
    likes: integer("likes").notNull(),
  },
  (t) => [check("like_tally_likes", sql`${t.likes} >= 0`)],
);

/** An account following a creator: their new public works are listed for it. */
export const follow = pgTable(
  "follow",
  {
    followerId: text("follower_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    creatorId: text("creator_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.followerId, t.creatorId] }),
    check("follow_not_self", sql`${t.followerId} <> ${t.creatorId}`),
    index("follow_creator_idx").on(t.creatorId),
  ],
);
