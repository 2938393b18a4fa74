import { randomUUID } from "node:crypto";
import { sql, type SQL } from "drizzle-orm";
import type { Tx } from "#server/modules/credits/ledger.ts";
import type { PgBoss } from "#server/jobs/boss.ts";

export const GENERATION_QUEUE = "generation.run";
export const GENERATION_SWEEP_QUEUE = "generation.sweep";

export interface GenerationJob {
  generationId: string;
}

/** Runs a worker may start for one job: the first and two retries after a crash or a lost claim. */
export const MAX_RUNS = 3;
/** A run's worker proves it is alive this often; a silent one is given up and the job retried. */
export const HEARTBEAT_SECONDS = 10;

/** pg-boss's statement (`$1`-style placeholders) as a Drizzle query, so it runs inside the caller's transaction. */
function toSql(text: string, values: unknown[] = []): SQL {
  const chunks: SQL[] = [];
  let last = 0;
  for (const match of text.matchAll(/\$(\d+)/g)) {
    chunks.push(sql.raw(text.slice(last, match.index)));
    chunks.push(sql`${sql.param(values[Number(match[1]) - 1])}`);
    last = match.index + match[0].length;
  }
  chunks.push(sql.raw(text.slice(last)));
  return sql.join(chunks, sql.raw(""));
}

/**
 * Enqueues a generation's job in the transaction that creates the generation and holds its credits: either all
 * three exist or none does. The job's id is the generation's, so sending it twice is harmless.
 */
export async function enqueueGenerationInTx(
  boss: PgBoss,
  tx: Tx,
  job: GenerationJob,
  { timeoutSeconds }: { timeoutSeconds: number },
): Promise<void> {
  await boss.send(GENERATION_QUEUE, job, {
    id: job.generationId,
    retryLimit: MAX_RUNS - 1,
    retryDelay: 2,
    expireInSeconds: timeoutSeconds + 120,
    heartbeatSeconds: HEARTBEAT_SECONDS,
    db: {
      async executeSql(text: string, values?: unknown[]) {
        const result = (await tx.execute(toSql(text, values))) as unknown as { rows: unknown[] };
        return { rows: result.rows };
      },
    },
  });
}

/**
 * pg-boss looks a queue up before sending and caches it; on the embedded database that lookup would wait for the
 * open transaction it is called from, so it is made beforehand (reading a job by id fills the same cache).
 */
export async function warmQueue(boss: PgBoss): Promise<void> {
  if (warmed.has(boss)) return;
  await boss.getJobById(GENERATION_QUEUE, randomUUID());
  warmed.add(boss);
}
const warmed = new WeakSet<PgBoss>();
