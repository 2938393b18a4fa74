import type { Db } from "#server/db/client.ts";
import type { Tx } from "#server/modules/credits/ledger.ts";
import { adminAction } from "#server/db/schema/index.ts";

/** Who did it: an administrator's account (with the address they acted from), or the command line. */
export interface AdminActor {
  id: string | null;
  label: string;
  ip?: string | null;
}

/** The command line, as an actor. */
export const CLI_ACTOR: AdminActor = { id: null, label: "cli" };

export interface AdminActionEntry {
  action: string;
  targetType: "user" | "codes" | "settings" | "model" | "connection" | "order" | "generation" | "plan";
  targetId?: string | null;
  targetLabel?: string | null;
  before?: unknown;
  after?: unknown;
  reason?: string | null;
}

/**
 * Writes one entry of the audit log, in the caller's transaction when given one, so that an action and its entry
 * are kept or lost together.
 */
export async function recordAdminAction(db: Db | Tx, actor: AdminActor, entry: AdminActionEntry): Promise<void> {
  await db.insert(adminAction).values({
    actorId: actor.id,
    actor: actor.label,
    action: entry.action,
    targetType: entry.targetType,
    targetId: entry.targetId ?? null,
    targetLabel: entry.targetLabel ?? null,
    before: entry.before ?? null,
    after: entry.after ?? null,
    reason: entry.reason ?? null,
    ip: actor.ip ?? null,
  });
}
