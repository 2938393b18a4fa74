import { and, eq, inArray } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { generation } from "#server/db/schema/index.ts";
import { AppError } from "#server/errors.ts";
import { isUuid } from "#common/ids.ts";
import { warmWebhookQueue, type WebhookSender } from "#server/modules/webhooks/queue-webhook.ts";
import { endGenerationInTx } from "./end-generation.ts";

/**
 * Cancels a queued or running job of the user: canceled, its credits released and its webhook queued, in one
 * transaction (endGenerationInTx). A running worker notices within a second and stops. Canceling a canceled job again is a no-op; a finished one is a 409.
 */
export async function cancelGeneration(options: WebhookSender & { db: Db; userId: string; id: string }): Promise<void> {
  if (!isUuid(options.id)) throw new AppError("not_found", `no generation ${options.id}`);
  await warmWebhookQueue(options.boss);
  const canceled = await options.db.transaction((tx) =>
    endGenerationInTx(tx, options, {
      where: and(
        eq(generation.id, options.id),
        eq(generation.userId, options.userId),
        inArray(generation.status, ["queued", "processing"]),
      )!,
      ending: { status: "canceled" },
    }),
  );
  if (canceled) return;
  const [job] = await options.db
    .select({ status: generation.status })
    .from(generation)
    .where(and(eq(generation.id, options.id), eq(generation.userId, options.userId)));
  if (!job) throw new AppError("not_found", `no generation ${options.id}`);
  if (job.status !== "canceled") throw new AppError("not_cancelable", `the generation has ${job.status}`);
}
