import { sql } from "drizzle-orm";
import { check, index, integer, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";

export const MODEL_CHECK_STATUSES = ["running", "succeeded", "failed"] as const;
export type ModelCheckStatus = (typeof MODEL_CHECK_STATUSES)[number];

/**
 * A health test of one of a model's providers, asked for in the console: a real generation (one image, or the
 * shortest video) through the same adapter as a job, run by a worker. Its outputs are not kept; its outcome,
 * duration and the provider's error are, as a history per model and provider.
 */
export const modelCheck = pgTable(
  "model_check",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    modelId: text("model_id").notNull(),
    /** The binding's place in the model's list, and what it was when the test was asked for. */
    binding: integer("binding").notNull(),
    provider: text("provider").notNull(),
    providerModel: text("provider_model").notNull(),
    /** The workflow the binding ran when the test was asked for (a workflow model's version, by its file's hash). */
    workflowSha256: text("workflow_sha256"),
    status: text("status").$type<ModelCheckStatus>().notNull().default("running"),
    /** The engine's failure code (`provider_auth`, `timeout`, …) and the provider's own words, redacted. */
    errorCode: text("error_code"),
    detail: text("detail"),
    durationMs: integer("duration_ms"),
    actorId: text("actor_id"),
    actor: text("actor").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp("finished_at", { withTimezone: true }),
  },
  (t) => [
    check("model_check_status", sql`${t.status} in ('running', 'succeeded', 'failed')`),
    index("model_check_model_idx").on(t.modelId, t.binding, t.createdAt.desc()),
  ],
);
