import { createHash, randomUUID } from "node:crypto";
import { sql, type SQL } from "drizzle-orm";
import type { SendOptions } from "pg-boss";
import type { Tx } from "#server/modules/credits/ledger.ts";
import type { PgBoss } from "#server/jobs/boss.ts";

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
 * Sends a job in the caller's transaction: the job exists if and only if the transaction commits, so the work it
 * stands for is neither lost after a commit nor done after a rollback. Call warmQueue for the queue first.
 */
export async function sendInTx(
  boss: PgBoss,
  tx: Tx,
  queue: string,
  data: object,
  options: Omit<SendOptions, "db">,
): Promise<void> {
  await boss.send(queue, data, {
    ...options,
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
export async function warmQueue(boss: PgBoss, queue: string): Promise<void> {
  let queues = warmed.get(boss);
  if (queues?.has(queue)) return;
  await boss.getJobById(queue, randomUUID());
  if (!queues) warmed.set(boss, (queues = new Set()));
  queues.add(queue);
}
const warmed = new WeakMap<PgBoss, Set<string>>();

/** A UUID made from a name (SHA-256, shaped as version 5 is): the same name, the same id. */
export function uuidFrom(name: string): string {
  const hex = createHash("sha256").update(name).digest("hex");
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
