import { setTimeout as sleep } from "node:timers/promises";
import { eq } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { generation } from "#server/db/schema/index.ts";
import { OPEN_STATUSES } from "#common/generation.ts";

/**
 * Waits until a generation has ended (or is gone) or `until` (epoch ms) comes, reading its status from the database
 * (a worker in another process may be running it): often at first, then at most every second. True when it ended.
 */
export async function waitForGeneration(options: { db: Db; id: string; until: number }): Promise<boolean> {
  let delay = 100;
  for (;;) {
    const [row] = await options.db
      .select({ status: generation.status })
      .from(generation)
      .where(eq(generation.id, options.id));
    if (!row || !OPEN_STATUSES.includes(row.status)) return true;
    const left = options.until - Date.now();
    if (left <= 0) return false;
    await sleep(Math.min(delay, left));
    delay = Math.min(delay * 1.5, 1000);
  }
}
