import { sql } from "drizzle-orm";
import { check, index, jsonb, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { user } from "./auth.ts";
import { generation } from "./generations.ts";
import { REPORT_REASONS, type ReportReason, type SafetyFinding } from "#common/safety.ts";
import { list } from "./sql-list.ts";

/**
 * A prompt the checks refused before anything was held or queued: who, through what, which model, and what each
 * check said. Kept so that an administrator sees what is being tried (and by whom) without a generation existing.
 */
export const promptRefusal = pgTable(
  "prompt_refusal",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    source: text("source").$type<"web" | "api" | "openai" | "chat">().notNull(),
    modelId: text("model_id").notNull(),
    prompt: text("prompt").notNull(),
    level: text("level").notNull(),
    findings: jsonb("findings").$type<SafetyFinding[]>().notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("prompt_refusal_created_idx").on(t.createdAt.desc()), index("prompt_refusal_user_idx").on(t.userId)],
);

/**
 * A visitor's report of a public result: why, an optional note, and who (an account when signed in; otherwise only
 * a keyed hash of the address, to count repeats without keeping it). Open until an administrator acts on the result.
 */
export const contentReport = pgTable(
  "content_report",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    generationId: uuid("generation_id")
      .notNull()
      .references(() => generation.id, { onDelete: "cascade" }),
    reason: text("reason").$type<ReportReason>().notNull(),
    note: text("note"),
    reporterId: text("reporter_id").references(() => user.id, { onDelete: "set null" }),
    reporterHash: text("reporter_hash").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    /** When an administrator acted on the result, and how. */
    resolvedAt: timestamp("resolved_at", { withTimezone: true }),
    resolution: text("resolution"),
  },
  (t) => [
    check("content_report_reason", sql`${t.reason} in (${list(REPORT_REASONS)})`),
    check("content_report_note_length", sql`char_length(${t.note}) <= 1000`),
    index("content_report_open_idx")
      .on(t.generationId)
      .where(sql`${t.resolvedAt} is null`),
  ],
);
