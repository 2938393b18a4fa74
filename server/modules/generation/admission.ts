import { and, count, eq, sql } from "drizzle-orm";
import { generation } from "#server/db/schema/index.ts";
import { providerDefinition } from "#server/providers/registry.ts";
import type { RunDeps } from "./run-generation.ts";

/** Seconds a queued job waits before it asks again, when its account has its share running or the pool is full. */
const WAIT_SECONDS = 2;
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
  const [running] = await deps.db
    .select({ n: count() })
    .from(generation)
    .where(
      and(
        eq(generation.userId, row.userId),
        eq(generation.status, "processing"),
        sql`${generation.modelSnapshot} -> 'bindings' -> 0 ->> 'connection' = ${binding.connection}`,
      ),
    );
  if ((running?.n ?? 0) >= pool.perAccount(connection.settings)) return WAIT_SECONDS;
  try {
    const room = await pool.room(connection.settings, signal ?? AbortSignal.timeout(10_000));
    return room === "full" ? WAIT_SECONDS : null;
  } catch (error) {
    deps.logger.warn({ err: (error as Error).message, generationId }, "pool not asked for room; the job starts");
    return null;
  }
}
