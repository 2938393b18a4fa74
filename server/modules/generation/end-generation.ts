import { sql, type SQL } from "drizzle-orm";
import { generation } from "#server/db/schema/index.ts";
import { settleHoldInTx, type Tx } from "#server/modules/credits/ledger.ts";
import { queueWebhookInTx, type WebhookSender } from "#server/modules/webhooks/queue-webhook.ts";
import { FAILURES, type FailureCode } from "#common/generation.ts";

/** How a generation ends, with what its row records of it. */
export type Ending =
  | {
      status: "succeeded";
      /** Credits taken from the hold (at most what it holds); the rest is returned. */
      charge: number;
      provider: string;
      providerModel: string;
      durationMs: number;
    }
  | { status: "failed"; failure: FailureCode }
  | { status: "canceled" };

export interface EndedGeneration {
  id: string;
  userId: string;
}

/**
 * Ends the generation `where` selects, if it is still in the state `where` expects, inside the caller's
 * transaction: its status and outcome, its hold captured (success) or released (failure, cancellation), and its
 * webhook message queued. The three happen together or not at all, and only the first of several competing
 * endings (a worker finishing, the owner canceling, the sweeper giving up) takes effect: the others get null.
 * Call warmWebhookQueue before the transaction.
 */
export async function endGenerationInTx(
  tx: Tx,
  sender: WebhookSender,
  options: { where: SQL; ending: Ending },
): Promise<EndedGeneration | null> {
  const { ending } = options;
  const [row] = await tx
    .update(generation)
    .set({ ...outcomeOf(ending), status: ending.status, finishedAt: sql`now()`, updatedAt: sql`now()` })
    .where(options.where)
    .returning({
      id: generation.id,
      userId: generation.userId,
      holdId: generation.holdId,
      webhookUrl: generation.webhookUrl,
    });
  if (!row) return null;
  if (row.holdId)
    await settleHoldInTx(
      tx,
      ending.status === "succeeded"
        ? { holdId: row.holdId, as: "capture", charge: ending.charge }
        : { holdId: row.holdId, as: "release" },
    );
  await queueWebhookInTx(tx, sender, {
    generationId: row.id,
    userId: row.userId,
    url: row.webhookUrl,
    event: `generation.${ending.status}`,
  });
  return { id: row.id, userId: row.userId };
}

/** The columns an ending sets besides its status and times. */
function outcomeOf(ending: Ending) {
  switch (ending.status) {
    case "succeeded":
      return {
        progress: 100,
        provider: ending.provider,
        providerModel: ending.providerModel,
        creditsCharged: ending.charge,
        durationMs: ending.durationMs,
      };
    case "failed":
      return { creditsCharged: 0, errorCode: ending.failure, errorMessage: FAILURES[ending.failure].text };
    case "canceled":
      return { creditsCharged: 0, errorCode: null, errorMessage: null };
  }
}
