import type { Tx } from "#server/modules/credits/ledger.ts";
import type { PgBoss } from "#server/jobs/boss.ts";
import { sendInTx, warmQueue } from "#server/jobs/send-in-tx.ts";

export const GENERATION_QUEUE = "generation.run";
export const GENERATION_SWEEP_QUEUE = "generation.sweep";

export interface GenerationJob {
  generationId: string;
}

/** Runs a worker may start for one job: the first and two retries after a crash or a lost claim. */
export const MAX_RUNS = 3;
/** A run's worker proves it is alive this often; a silent one is given up and the job retried. */
export const HEARTBEAT_SECONDS = 10;

/**
 * Enqueues a generation's job in the transaction that creates the generation and holds its credits: either all
 * three exist or none does. The job's id is the generation's, so sending it twice is harmless.
 */
export async function enqueueGenerationInTx(
  boss: PgBoss,
  tx: Tx,
  job: GenerationJob,
  { timeoutSeconds, priority = false }: { timeoutSeconds: number; priority?: boolean },
): Promise<void> {
  await sendInTx(boss, tx, GENERATION_QUEUE, job, {
    // A plan with priority in the queue: its jobs are fetched before the others waiting.
    ...(priority ? { priority: PRIORITY_JOB } : {}),
    id: job.generationId,
    retryLimit: MAX_RUNS - 1,
    retryDelay: 2,
    expireInSeconds: timeoutSeconds + 120,
    heartbeatSeconds: HEARTBEAT_SECONDS,
  });
}

/** pg-boss fetches higher priorities first; jobs of other plans have 0. */
export const PRIORITY_JOB = 10;

/** Made before the transaction that enqueues a generation (see warmQueue). */
export const warmGenerationQueue = (boss: PgBoss) => warmQueue(boss, GENERATION_QUEUE);
