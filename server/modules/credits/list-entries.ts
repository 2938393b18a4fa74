import { count, desc, eq, inArray } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { creditEntry, redemptionCode } from "#server/db/schema/index.ts";

export interface EntryView {
  id: number;
  kind: (typeof creditEntry.$inferSelect)["kind"];
  amount: number;
  /** What the entry did to the part held for jobs (a hold reserves, its settlement frees). */
  heldChange: number;
  balanceAfter: number;
  reference: { type: "order" | "job" | "code" | "admin" | "user"; id: string; label?: string } | null;
  createdAt: Date;
}

function parseReference(reference: string | null): EntryView["reference"] {
  const match = reference ? /^(order|job|code|admin|user):(.+)$/.exec(reference) : null;
  return match ? { type: match[1] as "order", id: match[2]! } : null;
}

/** One page of a user's credit history (the ledger), newest first; codes are named by their visible start. */
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
        reference: creditEntry.reference,
        createdAt: creditEntry.createdAt,
      })
      .from(creditEntry)
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
  return { rows: views, total: total?.n ?? 0 };
}
