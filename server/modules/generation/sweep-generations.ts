import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { creditHold, generation, generationAttempt } from "#server/db/schema/index.ts";
import { settleHoldInTx } from "#server/modules/credits/ledger.ts";
import { warmWebhookQueue, type WebhookSender } from "#server/modules/webhooks/queue-webhook.ts";
import { endGenerationInTx } from "./end-generation.ts";

/** How long a job may wait in the queue beyond its own timeout before it is given up. */
const QUEUE_WAIT_SECONDS = 30 * 60;

/**
 * The backstop that keeps credits from being held forever: a job running past its timeout plus the margin (its
 * worker died and no retry finished it), or waiting in the queue far too long, is failed and its credits released;
 * a finished job whose hold is somehow still open has it settled the way its status says; a provider call whose
 * run died before saying how it ended is closed as interrupted (see closeInterruptedAttempts). Each in its own
 * transaction, conditional on the state it found, so it is safe next to running workers and other sweepers.
 */
export async function sweepGenerations(options: WebhookSender & { db: Db; marginSeconds: number; limit?: number }) {
  const limit = options.limit ?? 200;
  const stale = await options.db
    .select({ id: generation.id, status: generation.status, attempt: generation.attempt })
    .from(generation)
    .where(
      sql`(${generation.status} = 'processing' and ${generation.startedAt} < now() - make_interval(secs => ${generation.timeoutSeconds} + ${options.marginSeconds}))
        or (${generation.status} = 'queued' and ${generation.createdAt} < now() - make_interval(secs => ${generation.timeoutSeconds} + ${QUEUE_WAIT_SECONDS}))`,
    )
    .limit(limit);
  let failed = 0;
  if (stale.length > 0) await warmWebhookQueue(options.boss);
  for (const job of stale) {
    const ended = await options.db.transaction((tx) =>
      endGenerationInTx(tx, options, {
        where: and(eq(generation.id, job.id), eq(generation.status, job.status), eq(generation.attempt, job.attempt))!,
        ending: { status: "failed", failure: job.status === "processing" ? "timeout" : "interrupted" },
      }),
    );
    if (ended) failed++;
  }

  // Ended jobs with a hold still open: only possible if something outside the engine changed a row.
  const orphaned = await options.db
    .select({ holdId: creditHold.id, status: generation.status, charged: generation.creditsCharged })
    .from(generation)
    .innerJoin(creditHold, eq(creditHold.id, generation.holdId))
    .where(and(eq(creditHold.status, "open"), inArray(generation.status, ["succeeded", "failed", "canceled"])))
    .limit(limit);
  for (const h of orphaned) {
    await options.db
      .transaction((tx) =>
        settleHoldInTx(
          tx,
          h.status === "succeeded"
            ? { holdId: h.holdId, as: "capture", charge: h.charged ?? 0 }
            : { holdId: h.holdId, as: "release" },
        ),
      )
      .catch(() => undefined);
  }
  const closed = await closeInterruptedAttempts(options.db, { marginSeconds: options.marginSeconds, limit });
  return { failed, settled: orphaned.length, attemptsClosed: closed };
}

/**
 * Closes the provider calls (attempt rows) left without an outcome by a run whose worker died (killed, crashed,
 * lost its machine): those of a generation that has ended, or that a later run has taken over, or older than the
 * job's timeout plus the margin. They get the outcome `interrupted` and an end time. One conditional statement
 * (`outcome is null`, and what it checks of the generation only ever moves forward), at most `limit` rows: a
 * live worker's own report, should one still come, is written over it.
 */
export async function closeInterruptedAttempts(
  db: Db,
  options: { marginSeconds: number; limit: number },
): Promise<number> {
  const left = db
    .select({ id: generationAttempt.id })
    .from(generationAttempt)
    .innerJoin(generation, eq(generation.id, generationAttempt.generationId))
    .where(
      and(
        isNull(generationAttempt.outcome),
        sql`(${generation.status} in ('succeeded', 'failed', 'canceled')
          or ${generation.attempt} > ${generationAttempt.run}
          or ${generationAttempt.startedAt} < now() - make_interval(secs => ${generation.timeoutSeconds} + ${options.marginSeconds}))`,
      ),
    )
    .limit(options.limit);
  const closed = await db
    .update(generationAttempt)
    .set({
      outcome: "interrupted",
      errorCode: "interrupted",
      detail: "the run stopped without reporting how this call ended",
      finishedAt: sql`now()`,
    })
    .where(and(isNull(generationAttempt.outcome), inArray(generationAttempt.id, left)))
    .returning({ id: generationAttempt.id });
  return closed.length;
}
