import { sql } from "drizzle-orm";
import {
  bigint,
  bigserial,
  check,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  smallint,
  text,
  timestamp,
  uniqueIndex,
  uuid,
  type AnyPgColumn,
} from "drizzle-orm/pg-core";
import { user } from "./auth.ts";
import { apiKey } from "./api.ts";
import { creditHold } from "./credits.ts";
import {
  GENERATION_KINDS,
  GENERATION_STATUSES,
  GENERATION_TOOLS,
  VISIBILITIES,
  type GenerationKind,
  type GenerationParams,
  type GenerationStatus,
  type GenerationTool,
  type Visibility,
} from "#common/generation.ts";
import type { ModelSnapshot } from "#config/models.ts";
import { list } from "./sql-list.ts";
import { tsvector } from "./columns.ts";
import { REVIEW_STATES, type ReviewState, type SafetyRecord } from "#common/safety.ts";

/**
 * One generation job. Its credits are held at submit (`holdId`) and captured or released exactly once, in the same
 * transaction as the status change that ends the job. `attempt` counts the runs a worker started: only the current
 * run may report progress or finish, so a run that lost its claim (a crash, an expiry) cannot settle anything.
 */
export const generation = pgTable(
  "generation",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    kind: text("kind").$type<GenerationKind>().notNull(),
    tool: text("tool").$type<GenerationTool>().notNull(),
    modelId: text("model_id").notNull(),
    prompt: text("prompt").notNull(),
    negativePrompt: text("negative_prompt"),
    params: jsonb("params").$type<GenerationParams>().notNull(),
    /**
     * The model as it was when the job was submitted (its bindings, price and limits): a later edit of the model
     * never changes a queued or running job, nor what it costs. Null on jobs submitted before snapshots were kept.
     */
    modelSnapshot: jsonb("model_snapshot").$type<ModelSnapshot>(),
    /** The image it starts from (a video's first frame), for the tools that take one. */
    inputAssetId: uuid("input_asset_id").references((): AnyPgColumn => asset.id, { onDelete: "set null" }),
    /** The painted mask of the input image (white: what changes), for the mask tools. */
    maskAssetId: uuid("mask_asset_id").references((): AnyPgColumn => asset.id, { onDelete: "set null" }),
    /** A video's last frame, when one was given. */
    endAssetId: uuid("end_asset_id").references((): AnyPgColumn => asset.id, { onDelete: "set null" }),
    /** The generation it was made from: the result its input image is, or the one it varies. */
    parentId: uuid("parent_id").references((): AnyPgColumn => generation.id, { onDelete: "set null" }),
    status: text("status").$type<GenerationStatus>().notNull().default("queued"),
    progress: integer("progress").notNull().default(0),
    creditsHeld: bigint("credits_held", { mode: "number" }).notNull(),
    creditsCharged: bigint("credits_charged", { mode: "number" }),
    holdId: uuid("hold_id").references(() => creditHold.id),
    /** Which binding served it, once one did. */
    provider: text("provider"),
    providerModel: text("provider_model"),
    errorCode: text("error_code"),
    /** A message safe to show the user (English; pages translate by code). */
    errorMessage: text("error_message"),
    visibility: text("visibility").$type<Visibility>().notNull().default("private"),
    /** When an administrator hid it from the public (moderation): private since, and its owner cannot publish it. */
    hiddenAt: timestamp("hidden_at", { withTimezone: true }),
    /** What the prompt and output checks found, and at which level (null before checks were kept). */
    safety: jsonb("safety").$type<SafetyRecord>(),
    /**
     * Flagged by a check: private to its owner (shown blurred), and it cannot be published or shared until an
     * administrator clears it; `cleared` once one has.
     */
    review: text("review").$type<ReviewState>(),
    reviewedAt: timestamp("reviewed_at", { withTimezone: true }),
    /** When an administrator gave its credits back (at most once). */
    refundedAt: timestamp("refunded_at", { withTimezone: true }),
    source: text("source").$type<"web" | "api">().notNull().default("web"),
    /** The API key that asked for it, while the key exists (its owner's credit history names it). */
    apiKeyId: uuid("api_key_id").references(() => apiKey.id, { onDelete: "set null" }),
    /** Where to POST the generation once it ends (public API requests only). */
    webhookUrl: text("webhook_url"),
    /** The client's key: the same key (for the same user) returns the same job. */
    idempotencyKey: text("idempotency_key"),
    /** Hash of the request the key came with, to tell a repeat from a different request reusing the key. */
    requestHash: text("request_hash"),
    attempt: integer("attempt").notNull().default(0),
    timeoutSeconds: integer("timeout_seconds").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    startedAt: timestamp("started_at", { withTimezone: true }),
    heartbeatAt: timestamp("heartbeat_at", { withTimezone: true }),
    finishedAt: timestamp("finished_at", { withTimezone: true }),
    /** Time the provider took for the run that succeeded; the ETA learns from these. */
    durationMs: integer("duration_ms"),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
    /** The public result it remixes: made with that result's tool, model and settings from an edited prompt. */
    remixOfId: uuid("remix_of_id").references((): AnyPgColumn => generation.id, { onDelete: "set null" }),
    /** The prompt's language (one of the ten locales) as detected when it was submitted; null when unsure. */
    promptLang: text("prompt_lang"),
    /**
     * Its likes on a doubling scale for the trending order: the whole part of log2 of `like_tally.likes` (0 for none
     * or one). It changes only when the likes cross a power of two, so a like rarely rewrites this wide, much indexed
     * row: the exact count lives in `like_tally`.
     */
    likeRank: smallint("like_rank").notNull().default(0),
    /** Remixes made of it, counted when each is submitted. */
    remixCount: integer("remix_count").notNull().default(0),
    /** When an administrator featured it (on the home page and at the top of explore); null when not featured. */
    featuredAt: timestamp("featured_at", { withTimezone: true }),
    /**
     * Explore's "trending" order: likes on a log scale plus the creation time (`atelier_hot`: each doubling of the
     * likes makes up for 3.8 hours of age, ten times the likes for 12.5 hours), so no job has to recompute it as time
     * passes.
     */
    hot: doublePrecision("hot").generatedAlwaysAs(sql`atelier_hot(like_rank, created_at)`),
    /** The prompt for explore's search: stemmed in its language, word for word, and CJK text as characters and pairs. */
    search: tsvector("search").generatedAlwaysAs(sql`atelier_prompt_search(prompt_lang, prompt)`),
  },
  (t) => [
    check("generation_kind", sql`${t.kind} in (${list(GENERATION_KINDS)})`),
    check("generation_tool", sql`${t.tool} in (${list(GENERATION_TOOLS)})`),
    check("generation_status", sql`${t.status} in (${list(GENERATION_STATUSES)})`),
    check("generation_visibility", sql`${t.visibility} in (${list(VISIBILITIES)})`),
    check("generation_review", sql`${t.review} in (${list(REVIEW_STATES)})`),
    check("generation_progress", sql`${t.progress} between 0 and 100`),
    check(
      "generation_credits",
      sql`${t.creditsHeld} >= 0 and coalesce(${t.creditsCharged}, 0) between 0 and ${t.creditsHeld}`,
    ),
    index("generation_user_created_idx").on(t.userId, t.createdAt.desc(), t.id.desc()),
    // The console's figures over a period.
    index("generation_created_idx").on(t.createdAt),
    // A key's deletion lets go of what it asked for.
    index("generation_api_key_idx")
      .on(t.apiKeyId)
      .where(sql`${t.apiKeyId} is not null`),
    uniqueIndex("generation_user_idempotency_idx")
      .on(t.userId, t.idempotencyKey)
      .where(sql`${t.idempotencyKey} is not null`),
    // The sweeper's and the ETA's queries.
    index("generation_open_idx")
      .on(t.status, t.createdAt)
      .where(sql`${t.status} in ('queued', 'processing')`),
    // An account's jobs still queued or running: what its plan's jobs-at-once limit counts.
    index("generation_user_open_idx")
      .on(t.userId)
      .where(sql`${t.status} in ('queued', 'processing')`),
    index("generation_model_succeeded_idx")
      .on(t.modelId, t.finishedAt.desc())
      .where(sql`${t.status} = 'succeeded'`),
    // The status page's outcomes of the last day.
    index("generation_finished_idx")
      .on(t.finishedAt)
      .where(sql`${t.status} in ('succeeded', 'failed')`),
    index("generation_public_idx")
      .on(t.createdAt.desc())
      .where(sql`${t.visibility} = 'public' and ${t.status} = 'succeeded'`),
    // Explore's orders and search, over public results only.
    index("generation_public_hot_idx")
      .on(t.hot.desc(), t.id)
      .where(sql`${t.visibility} = 'public' and ${t.status} = 'succeeded'`),
    index("generation_public_remixed_idx")
      .on(t.remixCount.desc(), t.createdAt.desc())
      .where(sql`${t.visibility} = 'public' and ${t.status} = 'succeeded'`),
    index("generation_public_user_idx")
      .on(t.userId, t.createdAt.desc())
      .where(sql`${t.visibility} = 'public' and ${t.status} = 'succeeded'`),
    // Written straight into the index (no pending list that every search would read through): results are made far
    // less often than they are searched.
    index("generation_public_search_idx")
      .using("gin", t.search)
      .with({ fastupdate: false })
      .where(sql`${t.visibility} = 'public' and ${t.status} = 'succeeded'`),
    index("generation_featured_idx")
      .on(t.featuredAt.desc())
      .where(sql`${t.featuredAt} is not null`),
    index("generation_remix_of_idx")
      .on(t.remixOfId)
      .where(sql`${t.remixOfId} is not null`),
    // The review queue.
    index("generation_flagged_idx")
      .on(t.createdAt)
      .where(sql`${t.review} = 'flagged'`),
    // A result's page lists what was made from it.
    index("generation_parent_idx")
      .on(t.parentId)
      .where(sql`${t.parentId} is not null`),
  ],
);

export const ASSET_ROLES = ["output", "input"] as const;
export type AssetRole = (typeof ASSET_ROLES)[number];

/**
 * A stored media file: an output of a generation, or an input image a user uploaded. The bytes live in storage
 * under `storageKey` (and a thumbnail or poster frame under `thumbKey`); the row says who may read them.
 */
export const asset = pgTable(
  "asset",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    generationId: uuid("generation_id").references((): AnyPgColumn => generation.id, { onDelete: "cascade" }),
    role: text("role").$type<AssetRole>().notNull(),
    kind: text("kind").$type<"image" | "video">().notNull(),
    mimeType: text("mime_type").notNull(),
    width: integer("width"),
    height: integer("height"),
    durationMs: integer("duration_ms"),
    sizeBytes: bigint("size_bytes", { mode: "number" }).notNull(),
    checksum: text("checksum").notNull(),
    storageKey: text("storage_key").notNull().unique(),
    thumbKey: text("thumb_key"),
    position: integer("position").notNull().default(0),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check("asset_role", sql`${t.role} in (${list(ASSET_ROLES)})`),
    check("asset_kind", sql`${t.kind} in ('image', 'video')`),
    index("asset_generation_idx").on(t.generationId, t.position),
    index("asset_user_created_idx").on(t.userId, t.createdAt),
  ],
);

/** Each provider call a run made: which binding, how it ended, and why. Failover shows here. */
export const generationAttempt = pgTable(
  "generation_attempt",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    generationId: uuid("generation_id")
      .notNull()
      .references(() => generation.id, { onDelete: "cascade" }),
    run: integer("run").notNull(),
    binding: integer("binding").notNull(),
    provider: text("provider").notNull(),
    providerModel: text("provider_model").notNull(),
    /** Null while the call runs; `interrupted` when its run died without saying (closed by the sweeper). */
    outcome: text("outcome").$type<"succeeded" | "failed" | "interrupted">(),
    errorCode: text("error_code"),
    detail: text("detail"),
    startedAt: timestamp("started_at", { withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp("finished_at", { withTimezone: true }),
  },
  (t) => [
    index("generation_attempt_generation_idx").on(t.generationId, t.id),
    // The sweeper's look for calls a dead run left open: few rows, however long the history.
    index("generation_attempt_open_idx")
      .on(t.generationId)
      .where(sql`${t.outcome} is null`),
  ],
);
