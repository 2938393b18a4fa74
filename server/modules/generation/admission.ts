import { and, count, eq, sql } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { generation } from "#server/db/schema/index.ts";
import { providerDefinition } from "#server/providers/registry.ts";
import type { RunDeps } from "./run-generation.ts";

/** Seconds a queued job waits before it goes to the back of the queue, when its account has its share running or the pool is full. */
const WAIT_SECONDS = 1;
/**
 * How long a job admitted for its account waits in this worker for room on a full pool before it goes to the back of
 * the queue: a server's room is usually a few seconds away, and the queue's round trip is slower than that.
 */
const ROOM_WAIT_MS = 10_000;
/**
 * A job waits for its turn this long at most; after it, it runs (and waits for room on the pool within its timeout),
 * before the sweeper gives up a job queued for its timeout and half an hour.
 */
const MAX_QUEUED_MINUTES = 20;

/**
 * Whether a queued job may start now, on a model whose first binding runs on a pool of the operator's machines
 * (ComfyUI): not while its account has the pool's `perAccount` jobs running on that connection, nor while every
 * server that answers is full. Returns the seconds to wait, or null to start now. A pool that does not answer at
 * all lets the job start, so that it fails over or fails and is refunded rather than waiting forever.
 */
export async function admission(
  deps: Pick<RunDeps, "db" | "models" | "logger">,
  generationId: string,
  signal?: AbortSignal,
): Promise<number | null> {
  const [row] = await deps.db
    .select({
      userId: generation.userId,
      snapshot: generation.modelSnapshot,
      queuedMinutes: sql<number>`extract(epoch from now() - ${generation.createdAt}) / 60`,
    })
    .from(generation)
    .where(and(eq(generation.id, generationId), eq(generation.status, "queued")));
  const binding = row?.snapshot?.bindings[0];
  if (!row || !binding || Number(row.queuedMinutes) > MAX_QUEUED_MINUTES) return null;
  const pool = providerDefinition(binding.provider).pool;
  if (!pool) return null;
  const connection = deps.models.connection(binding.connection);
  if (!connection) return null;
  const cap = pool.perAccount(connection.settings);
  const running = async (db: Pick<Db, "select">) => {
    const [counted] = await db
      .select({ n: count() })
      .from(generation)
      .where(
        and(
          eq(generation.userId, row.userId),
          eq(generation.status, "processing"),
          sql`${generation.modelSnapshot} -> 'bindings' -> 0 ->> 'connection' = ${binding.connection}`,
        ),
      );
    return counted?.n ?? 0;
  };
  if ((await running(deps.db)) >= cap) return WAIT_SECONDS;
  let room: "room" | "full" | "down";
  try {
    room = await pool.room(connection.settings, signal ?? AbortSignal.timeout(ROOM_WAIT_MS * 2), ROOM_WAIT_MS);
  } catch (error) {
    if (signal?.aborted) throw error;
    deps.logger.warn({ err: (error as Error).message, generationId }, "pool not asked for room; the job starts");
    room = "down";
  }
  if (room === "full") return WAIT_SECONDS;
  // Counted and taken in one transaction, one job of the account and connection at a time, so that workers admitting
  // the same account's jobs together do not all see room under its share. The run's claim follows.
  const admitted = await deps.db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`pool-share:${row.userId}:${binding.connection}`}))`);
    if ((await running(tx)) >= cap) return false;
    await tx
      .update(generation)
      .set({ status: "processing", startedAt: sql`now()`, heartbeatAt: sql`now()`, updatedAt: sql`now()` })
      .where(and(eq(generation.id, generationId), eq(generation.status, "queued")));
    return true;
  });
  return admitted ? null : WAIT_SECONDS;
}
