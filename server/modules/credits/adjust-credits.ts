import { randomUUID } from "node:crypto";
import type { Db } from "#server/db/client.ts";
import { user } from "#server/db/schema/index.ts";
import { AppError } from "#server/errors.ts";
import { recordAdminAction, type AdminActor } from "#server/modules/audit/record-admin-action.ts";
import { accountWhere, type AccountRef } from "#server/modules/users/account-ref.ts";
import { applyMovement, checkAmount, getBalance } from "./ledger.ts";

/**
 * An operator's correction of a balance: adds credits, or removes up to what is available (never credits held for
 * running jobs, never below zero: removing more is `insufficient_credits`). Recorded as `admin_adjustment` with who
 * asked for it as the reference, and in the audit log, in the same transaction.
 */
export async function adjustCredits({
  db,
  account: ref,
  amount,
  actor,
  reason,
}: {
  db: Db;
  account: AccountRef;
  amount: number;
  actor: AdminActor;
  reason?: string;
}) {
  if (amount === 0) throw new AppError("bad_request", "the adjustment must not be zero");
  checkAmount(Math.abs(amount));
  const [account] = await db.select({ id: user.id, email: user.email }).from(user).where(accountWhere(ref));
  if (!account)
    throw new AppError("not_found", "id" in ref ? "no such account" : `no account with the e-mail ${ref.email}`);
  const entry = await db.transaction(async (tx) => {
    if (amount < 0) {
      // A balance row to guard against: an account that never had credits has nothing to remove.
      const { available } = await getBalance({ db: tx, userId: account.id });
      if (available < -amount) throw new AppError("insufficient_credits", `only ${available} available`);
    }
    const moved = await applyMovement(tx, {
      userId: account.id,
      kind: "admin_adjustment",
      amount,
      heldChange: 0,
      reference: `admin:${actor.id ?? actor.label}`,
      idempotencyKey: `admin_adjustment:${randomUUID()}`,
    });
    await recordAdminAction(tx, actor, {
      action: "credits.adjust",
      targetType: "user",
      targetId: account.id,
      targetLabel: account.email,
      before: { balance: moved.balanceAfter - amount },
      after: { balance: moved.balanceAfter, change: amount },
      reason: reason ?? null,
    });
    return moved;
  });
  return { balance: entry.balanceAfter };
}
