import { count, desc, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { creditEntry, creditHold, generation, redemptionCode } from "#server/db/schema/index.ts";
import type { GenerationTool } from "#common/generation.ts";
import { isUuid } from "#common/ids.ts";

export interface EntryView {
  id: number;
  kind: (typeof creditEntry.$inferSelect)["kind"];
  amount: number;
  /** What the entry did to the part held for jobs (a hold reserves, its settlement frees). */
  heldChange: number;
  balanceAfter: number;
  /** What the entry is about; a job's names its generation's tool while the generation exists. */
  reference: {
    type: "order" | "job" | "code" | "admin" | "user";
    id: string;
    label?: string;
    tool?: GenerationTool;
  } | null;
  createdAt: Date;
}

function parseReference(reference: string | null): EntryView["reference"] {
  const match = reference ? /^(order|job|code|admin|user):(.+)$/.exec(reference) : null;
  return match ? { type: match[1] as "order", id: match[2]! } : null;
}

/**
 * One page of a user's credit history (the ledger), newest first; codes are named by their visible start, and jobs
 * by their generation (with its tool, to link to it, while it exists).
 */
export async function listEntries({
  db,
  userId,
  page,
  pageSize,
}: {
  db: Db;
  userId: string;
  page: number;
  pageSize: number;
}): Promise<{ rows: EntryView[]; total: number }> {
  const [rows, [total]] = await Promise.all([
    db
      .select({
        id: creditEntry.id,
        kind: creditEntry.kind,
        amount: creditEntry.amount,
        heldChange: creditEntry.heldChange,
        balanceAfter: creditEntry.balanceAfter,
        // A settlement names its job through its hold (entries written before it carried the reference too).
        reference: sql<string | null>`coalesce(${creditEntry.reference}, ${creditHold.reference})`,
        createdAt: creditEntry.createdAt,
      })
      .from(creditEntry)
      .leftJoin(creditHold, eq(creditHold.id, creditEntry.holdId))
      .where(eq(creditEntry.userId, userId))
      .orderBy(desc(creditEntry.id))
      .limit(pageSize)
      .offset((page - 1) * pageSize),
    db.select({ n: count() }).from(creditEntry).where(eq(creditEntry.userId, userId)),
  ]);
  const views = rows.map((r) => ({ ...r, reference: parseReference(r.reference) }));
  const codeIds = views.flatMap((v) => (v.reference?.type === "code" ? [v.reference.id] : []));
  if (codeIds.length > 0) {
    const hints = await db
      .select({ id: redemptionCode.id, hint: redemptionCode.hint })
      .from(redemptionCode)
      .where(inArray(redemptionCode.id, codeIds));
    const byId = new Map(hints.map((h) => [h.id, h.hint]));
    for (const v of views) if (v.reference?.type === "code") v.reference.label = byId.get(v.reference.id);
  }
  const jobIds = views.flatMap((v) => (v.reference?.type === "job" && isUuid(v.reference.id) ? [v.reference.id] : []));
  if (jobIds.length > 0) {
    const tools = await db
      .select({ id: generation.id, tool: generation.tool })
      .from(generation)
      .where(inArray(generation.id, [...new Set(jobIds)]));
    const byId = new Map(tools.map((g) => [g.id, g.tool]));
    for (const v of views) if (v.reference?.type === "job") v.reference.tool = byId.get(v.reference.id);
  }
  return { rows: views, total: total?.n ?? 0 };
}
