import { and, desc, eq, sql } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { alias } from "drizzle-orm/pg-core";
import { preparedPerDatabase } from "#server/db/prepared.ts";
import type { Env } from "#server/env.ts";
import { asset, generation } from "#server/db/schema/index.ts";
import { AppError } from "#server/errors.ts";
import { isUuid } from "#common/ids.ts";
import { modelCatalog } from "#config/models.ts";
import { FAILURES, type FailureCode, type GenerationParams } from "#common/generation.ts";
import { queueStanding, remainingSeconds, typicalSeconds, type QueueStanding } from "./estimate.ts";

export type Generation = typeof generation.$inferSelect;
/** What a view needs of an asset row. */
export type Asset = Pick<
  typeof asset.$inferSelect,
  "id" | "generationId" | "role" | "mimeType" | "width" | "height" | "durationMs" | "sizeBytes" | "thumbKey"
>;

export interface MediaView {
  id: string;
  url: string;
  thumbUrl: string | null;
  mimeType: string;
  width: number | null;
  height: number | null;
  durationMs: number | null;
  sizeBytes: number;
}

export interface GenerationView {
  id: string;
  kind: Generation["kind"];
  tool: Generation["tool"];
  model: { id: string; name: string; offline: boolean };
  prompt: string;
  negativePrompt: string | null;
  params: GenerationParams;
  status: Generation["status"];
  progress: number;
  etaSeconds: number | null;
  /** While queued: 1 when it is next (read for one generation, not in lists). */
  queuePosition: number | null;
  creditsHeld: number;
  creditsCharged: number | null;
  error: { code: string; message: string; messageKey: string } | null;
  visibility: Generation["visibility"];
  /** A check flagged it (kept private, shown blurred to its owner until an administrator clears it), or cleared. */
  review: Generation["review"];
  /** Where the public API was asked to send the result (only ever shown to the owner). */
  webhookUrl: string | null;
  outputs: MediaView[];
  input: MediaView | null;
  /** The painted mask it was given (owner only; white: what changed). */
  mask: MediaView | null;
  /** The video's last frame it was given (owner only). */
  end: MediaView | null;
  /** The generation this one was made from: its input image's, or the one it varies (owner only). */
  parentId: string | null;
  /** The public result it remixes, when it was made as a remix (owner only; the public page shows its own). */
  remixOfId: string | null;
  /**
   * The chain it belongs to, read for one generation's page only (`chain`): the generation it was made from (the
   * result its input image is, or the one it varies), and what was made from it. Absent from lists and polls.
   */
  parent?: ChainLink | null;
  children?: { count: number; items: ChainLink[] };
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

/** A generation of a chain, as a link to its page. */
export interface ChainLink {
  id: string;
  tool: Generation["tool"];
  prompt: string;
  /** Its first output's thumbnail, when it has one. */
  thumbUrl: string | null;
}

const EXT: Record<string, string> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/webp": "webp",
  "video/mp4": "mp4",
  "video/webm": "webm",
};

/** Where the app serves an asset: a stable URL that names it, never its storage location. */
export const mediaUrl = (id: string, mimeType: string) => `/media/${id}.${EXT[mimeType] ?? "bin"}`;

/** Media is served by the app at stable URLs that name the asset, never the storage location. */
/** The columns of an asset that `mediaView` reads. */
export const mediaColumns = {
  id: asset.id,
  mimeType: asset.mimeType,
  width: asset.width,
  height: asset.height,
  durationMs: asset.durationMs,
  sizeBytes: asset.sizeBytes,
  thumbKey: asset.thumbKey,
};

export function mediaView(
  a: Pick<Asset, "id" | "mimeType" | "width" | "height" | "durationMs" | "sizeBytes" | "thumbKey">,
): MediaView {
  return {
    id: a.id,
    url: mediaUrl(a.id, a.mimeType),
    thumbUrl: a.thumbKey ? `/media/${a.id}/thumb.webp` : null,
    mimeType: a.mimeType,
    width: a.width,
    height: a.height,
    durationMs: a.durationMs,
    sizeBytes: a.sizeBytes,
  };
}

export function presentGeneration(
  g: Generation,
  assets: Asset[],
  typical: number | null,
  queue: QueueStanding | null = null,
): GenerationView {
  const builtIn = modelCatalog.find((m) => m.id === g.modelId);
  const model = { name: g.modelSnapshot?.name ?? builtIn?.name, offline: builtIn?.offline };
  const failure = g.errorCode && g.errorCode in FAILURES ? FAILURES[g.errorCode as FailureCode] : null;
  const given = (id: string | null) => {
    const found = id ? assets.find((a) => a.id === id) : undefined;
    return found ? mediaView(found) : null;
  };
  return {
    id: g.id,
    kind: g.kind,
    tool: g.tool,
    model: { id: g.modelId, name: model.name ?? g.modelId, offline: Boolean(model.offline) },
    prompt: g.prompt,
    negativePrompt: g.negativePrompt,
    params: g.params,
    status: g.status,
    progress: g.progress,
    etaSeconds: typical === null ? null : remainingSeconds(g, typical, Date.now(), queue),
    queuePosition: g.status === "queued" && queue ? queue.position : null,
    creditsHeld: g.creditsHeld,
    creditsCharged: g.creditsCharged,
    error: g.errorCode
      ? {
          code: g.errorCode,
          message: g.errorMessage ?? failure?.text ?? "Unknown error",
          messageKey: failure?.key ?? "msg.unknownError",
        }
      : null,
    visibility: g.visibility,
    review: g.review,
    webhookUrl: g.webhookUrl,
    outputs: assets.filter((a) => a.generationId === g.id && a.role === "output").map(mediaView),
    input: given(g.inputAssetId),
    mask: given(g.maskAssetId),
    end: given(g.endAssetId),
    parentId: g.parentId,
    remixOfId: g.remixOfId,
    createdAt: g.createdAt.toISOString(),
    startedAt: g.startedAt?.toISOString() ?? null,
    finishedAt: g.finishedAt?.toISOString() ?? null,
  };
}

/** A generation's outputs and the images it was given, in order, as one JSON column of a read of `generation`. */
export const assetsOfGeneration = sql<Asset[]>`coalesce((
  select json_agg(json_build_object(
    'id', a.id, 'generationId', a.generation_id, 'role', a.role, 'mimeType', a.mime_type,
    'width', a.width, 'height', a.height, 'durationMs', a.duration_ms, 'sizeBytes', a.size_bytes,
    'thumbKey', a.thumb_key) order by a.position)
  from ${asset} a
  where a.generation_id = "generation"."id"
    or a.id in ("generation"."input_asset_id", "generation"."mask_asset_id", "generation"."end_asset_id")
), '[]'::json)`;

/**
 * The row with its outputs and input, in one round trip: a status poll is the hottest read there is, so the
 * statement is prepared.
 */
const readGeneration = preparedPerDatabase((db) =>
  db
    .select({ g: generation, assets: assetsOfGeneration })
    .from(generation)
    .where(eq(generation.id, sql.placeholder("id")))
    .prepare("atelier_get_generation"),
);

/** The assets `assetsOfGeneration` read, with their sizes as numbers (JSON gives a bigint as it likes). */
export const assetsFromJson = (assets: Asset[]): Asset[] =>
  assets.map((a) => ({ ...a, sizeBytes: Number(a.sizeBytes) }));

/** What a job's estimate reads of its model: the snapshot taken at its submission, or the built-in catalog's. */
export function modelOfJob(g: Pick<Generation, "modelId" | "modelSnapshot">) {
  if (g.modelSnapshot)
    return { id: g.modelId, kind: g.modelSnapshot.kind, expectedSeconds: g.modelSnapshot.expectedSeconds };
  return modelCatalog.find((m) => m.id === g.modelId);
}

/** The view of a row read with `assetsOfGeneration`, for its owner or (`mine` false) for anyone else. */
export async function viewOfGeneration(
  db: Db,
  env: Env,
  g: Generation,
  rawAssets: Asset[],
  mine: boolean,
): Promise<GenerationView & { mine: boolean }> {
  const assets = assetsFromJson(rawAssets);
  const model = modelOfJob(g);
  const open = g.status === "queued" || g.status === "processing";
  const [typical, queue] = await Promise.all([
    open && model ? typicalSeconds({ db, model, videoSeconds: g.params.duration }) : null,
    g.status === "queued" ? queueStanding(db, g, env.WORKER_CONCURRENCY) : null,
  ]);
  // Anyone else sees its own outputs only: not the images it was given (another result of the owner's among them).
  const shown = mine ? assets : assets.filter((a) => a.role === "output" && a.generationId === g.id);
  const view = presentGeneration(g, shown, typical, queue);
  return {
    ...view,
    webhookUrl: mine ? view.webhookUrl : null,
    parentId: mine ? view.parentId : null,
    remixOfId: mine ? view.remixOfId : null,
    mine,
  };
}

/**
 * One generation as its owner sees it (or anyone, when it is public and `viewer` is not the owner): status,
 * progress and estimate, outputs. Someone else's private generation does not exist for the caller (404).
 */
export async function getGeneration(options: {
  db: Db;
  env: Env;
  id: string;
  viewerId: string | null;
  /** Whether a public generation of someone else may be returned. */
  allowPublic?: boolean;
  /** Read its chain too (`parent`, `children`): a result page's, not a poll's. */
  chain?: boolean;
}): Promise<GenerationView & { mine: boolean }> {
  if (!isUuid(options.id)) throw new AppError("not_found", "no such generation");
  const [row] = await readGeneration(options.db).execute({ id: options.id });
  const g = row?.g;
  const mine = Boolean(g && options.viewerId && g.userId === options.viewerId);
  if (!g || (!mine && !(options.allowPublic && g.visibility === "public" && g.status === "succeeded"))) {
    throw new AppError("not_found", "no such generation");
  }
  const [view, chain] = await Promise.all([
    viewOfGeneration(options.db, options.env, g, row.assets, mine),
    options.chain ? chainOf(options.db, g, mine) : null,
  ]);
  return chain ? { ...view, ...chain } : view;
}

/** How many of the generations made from one a page lists. */
const CHILDREN_LISTED = 6;

/**
 * The generation one was made from, and those made from it. Its owner sees their own chain; anyone else (a public
 * share page) sees only the links that are public and finished too.
 */
export async function chainOf(
  db: Db,
  g: Pick<Generation, "id" | "parentId" | "userId">,
  mine: boolean,
): Promise<{ parent: ChainLink | null; children: { count: number; items: ChainLink[] } }> {
  const c = alias(generation, "c");
  const visible = mine
    ? eq(c.userId, g.userId)
    : and(eq(c.userId, g.userId), eq(c.visibility, "public"), eq(c.status, "succeeded"));
  // Its first output's thumbnail (a video's poster frame). The alias is spelled out: inside a select list Drizzle
  // writes a column without its table, which the subquery would read as the asset's own.
  const thumb = sql<string | null>`(
    select a.id::text from ${asset} a
    where a.generation_id = "c"."id" and a.role = 'output' and a.thumb_key is not null
    order by a.position limit 1)`;
  const fields = { id: c.id, tool: c.tool, prompt: c.prompt, thumb };
  const link = (r: { id: string; tool: Generation["tool"]; prompt: string; thumb: string | null }): ChainLink => ({
    id: r.id,
    tool: r.tool,
    prompt: r.prompt,
    thumbUrl: r.thumb ? `/media/${r.thumb}/thumb.webp` : null,
  });
  const [parentRows, childRows] = await Promise.all([
    g.parentId
      ? db
          .select(fields)
          .from(c)
          .where(and(eq(c.id, g.parentId), visible))
      : [],
    db
      .select({ ...fields, total: sql<number>`count(*) over ()` })
      .from(c)
      .where(and(eq(c.parentId, g.id), visible))
      .orderBy(desc(c.createdAt), desc(c.id))
      .limit(CHILDREN_LISTED),
  ]);
  const parentRow = parentRows[0];
  return {
    parent: parentRow ? link(parentRow) : null,
    children: { count: Number(childRows[0]?.total ?? 0), items: childRows.map(link) },
  };
}
