import { desc, eq } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { generation, webhookDelivery } from "#server/db/schema/index.ts";

export interface DeliveryView {
  id: string;
  event: (typeof webhookDelivery.$inferSelect)["event"];
  generationId: string | null;
  /** The generation's tool, to link to it; null once it was deleted. */
  tool: (typeof generation.$inferSelect)["tool"] | null;
  url: string;
  status: (typeof webhookDelivery.$inferSelect)["status"];
  attempts: number;
  lastStatusCode: number | null;
  lastError: (typeof webhookDelivery.$inferSelect)["lastError"];
  lastAttemptAt: string | null;
  deliveredAt: string | null;
  createdAt: string;
}

/** The user's most recent webhook messages, newest first. */
export async function listWebhookDeliveries(options: {
  db: Db;
  userId: string;
  limit?: number;
}): Promise<DeliveryView[]> {
  const rows = await options.db
    .select({
      id: webhookDelivery.id,
      event: webhookDelivery.event,
      generationId: webhookDelivery.generationId,
      tool: generation.tool,
      url: webhookDelivery.url,
      status: webhookDelivery.status,
      attempts: webhookDelivery.attempts,
      lastStatusCode: webhookDelivery.lastStatusCode,
      lastError: webhookDelivery.lastError,
      lastAttemptAt: webhookDelivery.lastAttemptAt,
      deliveredAt: webhookDelivery.deliveredAt,
      createdAt: webhookDelivery.createdAt,
    })
    .from(webhookDelivery)
    .leftJoin(generation, eq(generation.id, webhookDelivery.generationId))
    .where(eq(webhookDelivery.userId, options.userId))
    .orderBy(desc(webhookDelivery.createdAt), desc(webhookDelivery.id))
    .limit(options.limit ?? 50);
  return rows.map((r) => ({
    ...r,
    lastAttemptAt: r.lastAttemptAt?.toISOString() ?? null,
    deliveredAt: r.deliveredAt?.toISOString() ?? null,
    createdAt: r.createdAt.toISOString(),
  }));
}
