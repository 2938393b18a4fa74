import { withTimeout } from "#server/net/with-timeout.ts";
import type { Runtime } from "#server/runtime.ts";

/** Each check of a readiness probe gets this long, so that a hung database fails the probe instead of hanging it. */
const READY_TIMEOUT_MS = 2_000;

export type ReadyStatus = "ok" | "unavailable" | "starting" | "draining";

export interface Readiness {
  ok: boolean;
  status: ReadyStatus;
  checks: Record<"database" | "queue", "ok" | "down">;
}

/**
 * What `/readyz` says, on a web process and on a worker's probe port alike: `starting` until the runtime is open,
 * `draining` once the process is leaving, otherwise whether a round-trip to the database and to the job queue both
 * succeed.
 */
export async function readiness(runtime: Runtime | undefined, leaving: boolean): Promise<Readiness> {
  const checks: Readiness["checks"] = { database: "down", queue: "down" };
  if (runtime && !leaving) {
    const [db, queue] = await Promise.allSettled([
      withTimeout(runtime.database.ping(), READY_TIMEOUT_MS),
      withTimeout(runtime.boss.isInstalled(), READY_TIMEOUT_MS),
    ]);
    checks.database = db.status === "fulfilled" ? "ok" : "down";
    checks.queue = queue.status === "fulfilled" && queue.value ? "ok" : "down";
  }
  const ok = checks.database === "ok" && checks.queue === "ok";
  const status = leaving ? "draining" : runtime ? (ok ? "ok" : "unavailable") : "starting";
  return { ok, status, checks };
}
