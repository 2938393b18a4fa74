import { and, count, desc, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import {
  apiKey,
  chatConversation,
  chatMessage,
  creditEntry,
  creditHold,
  generation,
  redemptionCode,
} from "#server/db/schema/index.ts";
import type { GenerationTool } from "#common/generation.ts";
import { isUuid } from "#common/ids.ts";

export interface EntryView {
  id: number;
  kind: (typeof creditEntry.$inferSelect)["kind"];
  amount: number;
  /** What the entry did to the part held for jobs (a hold reserves, its settlement frees). */
  heldChange: number;
  balanceAfter: number;
  /**
   * What the entry is about: an order, a job (named by its generation's tool while the generation exists), a chat
   * answer (`id` is the answer's; named by its conversation while it exists), a code, the team, the sign-up.
   */
  reference: {
    type: ReferenceType;
    id: string;
    /** A code's visible start; a conversation's title. */
    label?: string;
    tool?: GenerationTool;
    /** The chat answer's conversation, while it exists. */
    conversationId?: string;
    /** Asked through the API: with the key's name, or null once the key was deleted (or had no name). */
    api?: { keyName: string | null };
  } | null;
  createdAt: Date;
}

export type ReferenceType = "order" | "job" | "chat" | "code" | "admin" | "user";

function parseReference(reference: string | null): EntryView["reference"] {
  const match = reference ? /^(order|job|chat|code|admin|user):(.+)$/.exec(reference) : null;
  return match ? { type: match[1] as ReferenceType, id: match[2]! } : null;
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
  const idsOf = (type: ReferenceType) => [
    ...new Set(views.flatMap((v) => (v.reference?.type === type && isUuid(v.reference.id) ? [v.reference.id] : []))),
  ];
  const jobIds = idsOf("job");
  if (jobIds.length > 0) {
    const jobs = await db
      .select({ id: generation.id, tool: generation.tool, source: generation.source, keyName: apiKey.name })
      .from(generation)
      .leftJoin(apiKey, eq(apiKey.id, generation.apiKeyId))
      .where(and(inArray(generation.id, jobIds), eq(generation.userId, userId)));
    const byId = new Map(jobs.map((g) => [g.id, g]));
    for (const v of views) {
      const job = v.reference?.type === "job" ? byId.get(v.reference.id) : undefined;
      if (!job) continue;
      v.reference!.tool = job.tool;
      if (job.source === "api") v.reference!.api = { keyName: job.keyName };
    }
  }
  const answerIds = idsOf("chat");
  if (answerIds.length > 0) {
    const answers = await db
      .select({
        id: chatMessage.id,
        conversationId: chatConversation.id,
        title: chatConversation.title,
        source: chatConversation.source,
        keyName: apiKey.name,
      })
      .from(chatMessage)
      .innerJoin(chatConversation, eq(chatConversation.id, chatMessage.conversationId))
      .leftJoin(apiKey, eq(apiKey.id, chatConversation.apiKeyId))
      .where(and(inArray(chatMessage.id, answerIds), eq(chatConversation.userId, userId)));
    const byId = new Map(answers.map((a) => [a.id, a]));
    for (const v of views) {
      const answer = v.reference?.type === "chat" ? byId.get(v.reference.id) : undefined;
      if (!answer) continue;
      if (answer.source === "api") v.reference!.api = { keyName: answer.keyName };
      else {
        v.reference!.conversationId = answer.conversationId;
        if (answer.title) v.reference!.label = answer.title;
      }
    }
  }
  return { rows: views, total: total?.n ?? 0 };
}
