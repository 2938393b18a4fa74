import type { Db } from "#server/db/client.ts";
import { expiryAfter, grantCredits } from "./ledger.ts";

/**
 * The sign-up bonus, granted once per account (its idempotency key is the user's id): safe to call on every
 * sign-in, which is where it happens, so only confirmed addresses get it. A bonus of 0 grants nothing; its credits
 * last `expiryDays` days (0: they never expire).
 */
export async function grantSignupBonus({
  db,
  userId,
  amount,
  expiryDays = 0,
}: {
  db: Db;
  userId: string;
  amount: number;
  expiryDays?: number;
}) {
  if (amount <= 0) return null;
  return grantCredits({
    db,
    userId,
    amount,
    kind: "signup_bonus",
    reference: `user:${userId}`,
    idempotencyKey: `signup_bonus:${userId}`,
    lot: { expiresAt: expiryAfter(expiryDays) },
  });
}
