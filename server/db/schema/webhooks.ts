import { sql } from "drizzle-orm";
import { check, index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { user } from "./auth.ts";
import { generation } from "./generations.ts";
import { list } from "./sql-list.ts";

export const WEBHOOK_EVENTS = ["generation.succeeded", "generation.failed", "generation.canceled"] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export const WEBHOOK_DELIVERY_STATUSES = ["pending", "delivered", "failed"] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

/** Why an attempt failed: no answer in time, an address the policy refuses, no connection, a redirect (not
 * followed), an answer other than 2xx, the generation gone before the first attempt, or retries run out. */
export const WEBHOOK_FAILURES = ["timeout", "refused", "unreachable", "redirect", "status", "gone", "expired"] as const;
export type WebhookFailure = (typeof WEBHOOK_FAILURES)[number];

/**
 * A user's webhook signing secret (`whsec_…`, Standard Webhooks). It signs, so it is kept as it is, not hashed.
 * After a rotation the previous secret keeps signing alongside the new one until `previousExpiresAt`, so a
 * receiver can switch without missing a delivery.
 */
export const webhookSecret = pgTable("webhook_secret", {
  userId: text("user_id")
    .primaryKey()
    .references(() => user.id, { onDelete: "cascade" }),
  secret: text("secret").notNull(),
  previousSecret: text("previous_secret"),
  previousExpiresAt: timestamp("previous_expires_at", { withTimezone: true }),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  rotatedAt: timestamp("rotated_at", { withTimezone: true }),
});

/**
 * One message to a generation's `webhook_url`, written in the transaction that ended the generation (so an ended
 * generation with a URL always has one) and sent by the `webhook.deliver` job, retried with backoff. `payload` is
 * fixed at the first attempt, so every retry sends the same body under the same id.
 */
export const webhookDelivery = pgTable(
  "webhook_delivery",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    generationId: uuid("generation_id").references(() => generation.id, { onDelete: "set null" }),
    event: text("event").$type<WebhookEvent>().notNull(),
    url: text("url").notNull(),
    /** The exact body sent (text, so every attempt sends the same bytes the signature covers). */
    payload: text("payload"),
    status: text("status").$type<WebhookDeliveryStatus>().notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    /** The receiver's HTTP status at the last attempt, or null when there was no answer. */
    lastStatusCode: integer("last_status_code"),
    /** Why the last attempt failed, when it did: one of WEBHOOK_FAILURES (never the receiver's body). */
    lastError: text("last_error").$type<WebhookFailure>(),
    lastAttemptAt: timestamp("last_attempt_at", { withTimezone: true }),
    deliveredAt: timestamp("delivered_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check("webhook_delivery_event", sql`${t.event} in (${list(WEBHOOK_EVENTS)})`),
    check("webhook_delivery_status", sql`${t.status} in (${list(WEBHOOK_DELIVERY_STATUSES)})`),
    check("webhook_delivery_last_error", sql`${t.lastError} in (${list(WEBHOOK_FAILURES)})`),
    // A generation ends once: one message about it.
    uniqueIndex("webhook_delivery_generation_idx").on(t.generationId),
    index("webhook_delivery_user_idx").on(t.userId, t.createdAt.desc()),
    index("webhook_delivery_pending_idx")
      .on(t.createdAt)
      .where(sql`${t.status} = 'pending'`),
  ],
);
