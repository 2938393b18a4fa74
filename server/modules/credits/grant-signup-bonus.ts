import type { Db } from "#server/db/client.ts";
import { grantCredits } from "./ledger.ts";

/**
 * The sign-up bonus, granted once per account (its idempotency key is the user's id): safe to call on every
 * sign-in, which is where it happens, so only confirmed addresses get it. A bonus of 0 grants nothing.
 */
export async function grantSignupBonus({ db, userId, amount }: { db: Db; userId: string; amount: number }) {
  if (amount <= 0) return null;
  return grantCredits({
    db,
    userId,
    amount,
    kind: "signup_bonus",
    reference: `user:${userId}`,
    idempotencyKey: `signup_bonus:${userId}`,
  });
}
