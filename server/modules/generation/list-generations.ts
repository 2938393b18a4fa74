import { and, asc, desc, eq, sql, type SQL } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { generation } from "#server/db/schema/index.ts";
import { AppError, requestError } from "#server/errors.ts";
import { listSchema } from "#common/generation.ts";
import {
  assetsFromJson,
  assetsOfGeneration,
  modelOfJob,
  presentGeneration,
  type GenerationView,
} from "./get-generation.ts";
import { typicalSeconds } from "./estimate.ts";
import { isUuid } from "#common/ids.ts";

/**
 * A position in the newest-first list: the last item's creation time, to the microsecond the database keeps (a
 * JavaScript date would round it and skip rows), and its id; opaque to clients.
 */
function encodeCursor(createdAt: string, id: string): string {
  return Buffer.from(`${createdAt}|${id}`).toString("base64url");
}

const CURSOR_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

function decodeCursor(cursor: string): { createdAt: string; id: string } {
  const [createdAt, id] = Buffer.from(cursor, "base64url").toString("utf8").split("|");
  if (!id || !isUuid(id) || !createdAt || !CURSOR_TIME.test(createdAt)) {
    throw new AppError("invalid_options", "cursor: not a cursor this API gave out", {
      key: "generation.errors.invalidField",
      values: { field: "cursor" },
    });
  }
  return { createdAt, id };
}

const exactTime = sql<string>`to_char(${generation.createdAt} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/**
 * The user's generations, newest first, filtered by kind, tool, status and visibility, a page at a time: the
 * cursor of the last item fetches the next page, unaffected by jobs created meanwhile.
 */
export async function listGenerations(options: {
  db: Db;
  userId: string;
  query: unknown;
  /** Oldest first (the cursor then moves forward in time). */
  oldestFirst?: boolean;
}): Promise<{ items: GenerationView[]; nextCursor: string | null }> {
  const parsed = listSchema.safeParse(options.query);
  if (!parsed.success) throw requestError(parsed.error.issues[0]);
  const q = parsed.data;
  const where: SQL[] = [eq(generation.userId, options.userId)];
  if (q.kind) where.push(eq(generation.kind, q.kind));
  if (q.tool) where.push(eq(generation.tool, q.tool));
  if (q.status) where.push(eq(generation.status, q.status));
  if (q.visibility) where.push(eq(generation.visibility, q.visibility));
  if (q.cursor) {
    const c = decodeCursor(q.cursor);
    const position = sql`(${generation.createdAt}, ${generation.id})`;
    const after = sql`(${c.createdAt}::timestamptz, ${c.id}::uuid)`;
    where.push(options.oldestFirst ? sql`${position} > ${after}` : sql`${position} < ${after}`);
  }
  const order = options.oldestFirst
    ? [asc(generation.createdAt), asc(generation.id)]
    : [desc(generation.createdAt), desc(generation.id)];
  // Each row with its outputs and input, in the one statement.
  const rows = await options.db
    .select({ row: generation, at: exactTime, assets: assetsOfGeneration })
    .from(generation)
    .where(and(...where))
    .orderBy(...order)
    .limit(q.limit + 1);
  const page = rows.slice(0, q.limit);
  const last = page.at(-1);
  // A running job's time left from what its model's recent runs took, as when it is read alone.
  const items = await Promise.all(
    page.map(async ({ row: g, assets }) => {
      const model = modelOfJob(g);
      const open = g.status === "queued" || g.status === "processing";
      const typical =
        open && model ? await typicalSeconds({ db: options.db, model, videoSeconds: g.params.duration }) : null;
      return presentGeneration(g, assetsFromJson(assets), typical);
    }),
  );
  return {
    items,
    nextCursor: rows.length > q.limit && last ? encodeCursor(last.at, last.row.id) : null,
  };
}

/** The cursor that lists what comes after one of the user's generations (an API that pages by item id). */
export async function cursorAfter(options: { db: Db; userId: string; id: string; kind?: GenerationView["kind"] }) {
  const where = [eq(generation.userId, options.userId), eq(generation.id, options.id)];
  if (options.kind) where.push(eq(generation.kind, options.kind));
  const [row] = isUuid(options.id)
    ? await options.db
        .select({ at: exactTime })
        .from(generation)
        .where(and(...where))
    : [];
  if (!row)
    throw new AppError("invalid_options", `after: no such item ${options.id}`, {
      key: "generation.errors.invalidField",
      values: { field: "after" },
    });
  return encodeCursor(row.at, options.id);
}
