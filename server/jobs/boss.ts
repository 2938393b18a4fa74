import { PgBoss, fromPglite } from "pg-boss";
import type { Logger } from "pino";
import type { DbHandle } from "#server/db/client.ts";
import { connectionBudget } from "#server/db/connections.ts";

export type { PgBoss };

/** pg-boss on the application database: the shared PGlite instance, or its own pool on PostgreSQL. */
/**
 * Jobs sent on notify-enabled queues wake workers at once; expired claims and silent workers (missed heartbeats)
 * are noticed within 20 s rather than pg-boss's default minute, so an interrupted generation is retried soon.
 */
const timing = { useListenNotify: true, superviseIntervalSeconds: 20, monitorIntervalSeconds: 20 };

export function createBoss(handle: DbHandle, logger: Logger, poolMax: number): PgBoss {
  const boss =
    handle.kind === "pglite"
      ? new PgBoss({ db: fromPglite(handle.pglite), backend: "pglite", schema: "pgboss", ...timing })
      : new PgBoss({
          ...timing,
          connectionString: handle.url,
          max: connectionBudget(poolMax).jobs,
          application_name: "atelier-jobs",
          schema: "pgboss",
        });
  // Without a listener an 'error' event would crash the process; a lost database is logged and retried.
  boss.on("error", (error) => logger.warn({ err: error.message }, "job queue error"));
  return boss;
}
