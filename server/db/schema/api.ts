import { sql } from "drizzle-orm";
import { bigint, check, index, integer, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { user } from "./auth.ts";
import { list } from "./sql-list.ts";
import { SAFETY_LEVELS, type SafetyLevel } from "#common/safety.ts";

export const API_KEY_STATUSES = ["active", "inactive"] as const;
export type ApiKeyStatus = (typeof API_KEY_STATUSES)[number];

/**
 * A user's key to the public API. Only the SHA-256 of the secret is kept (the secret has 256 random bits, so a
 * plain hash is as strong as a slow one and costs microseconds per request); `prefix` is its first characters,
 * shown to tell keys apart. Every request counts against the key's fixed one-minute window here, in the same
 * statement that checks the key is active, so a deactivated key is refused at once on every instance.
 */
export const apiKey = pgTable(
  "api_key",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    name: text("name"),
    prefix: text("prefix").notNull(),
    keyHash: text("key_hash").notNull().unique(),
    status: text("status").$type<ApiKeyStatus>().notNull().default("active"),
    /** The checks its requests get, chosen by an administrator; null follows each model's level. */
    safetyLevel: text("safety_level").$type<SafetyLevel>(),
    requestCount: bigint("request_count", { mode: "number" }).notNull().default(0),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true }),
    windowCount: integer("window_count").notNull().default(0),
    windowResetAt: timestamp("window_reset_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check("api_key_status", sql`${t.status} in (${list(API_KEY_STATUSES)})`),
    check("api_key_safety_level", sql`${t.safetyLevel} in (${list(SAFETY_LEVELS)})`),
    check("api_key_name_length", sql`char_length(${t.name}) between 1 and 64`),
    index("api_key_user_idx").on(t.userId, t.createdAt),
  ],
);

/** What an idempotency key keeps of its first answer (see `responseKind`). */
export type IdempotentAnswerKind = "json" | "chat_stream" | "remade";

/**
 * The stored answer of a POST sent with an `Idempotency-Key`, per user, for 24 hours. `running` while the first
 * request is in flight (its lock lapses after `lockedUntil`, so a crash does not block the key for a day).
 */
export const apiIdempotency = pgTable(
  "api_idempotency",
  {
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    key: text("key").notNull(),
    requestHash: text("request_hash").notNull(),
    state: text("state").$type<"running" | "done">().notNull().default("running"),
    responseStatus: integer("response_status"),
    responseBody: text("response_body"),
    /**
     * What the kept answer is: `json`, sent again as it was; `chat_stream`, a streamed chat answer named by its
     * message and streamed again from it; `remade`, made again from the request's jobs (images, sent anew).
     */
    responseKind: text("response_kind").$type<IdempotentAnswerKind>().notNull().default("json"),
    lockedUntil: timestamp("locked_until", { withTimezone: true }).notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.key] }),
    check("api_idempotency_state", sql`${t.state} in ('running', 'done')`),
    check("api_idempotency_response_kind", sql`${t.responseKind} in ('json', 'chat_stream', 'remade')`),
    index("api_idempotency_expires_idx").on(t.expiresAt),
  ],
);
