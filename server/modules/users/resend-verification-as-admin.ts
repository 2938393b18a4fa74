import { recordAdminAction, type AdminActor } from "#server/modules/audit/record-admin-action.ts";
import type { AuthAttempt, RateLimited } from "#server/modules/auth/attempts.ts";
import { resendVerification } from "#server/modules/auth/resend-verification.ts";
import { getUserRecord } from "./get-user-record.ts";

/**
 * Sends an account's confirmation link again on an administrator's behalf: as the account itself would ask for it
 * (the same limits per address), without the administrator's session, and in the audit log.
 */
export async function resendVerificationAsAdmin({
  attempt,
  userId,
  actor,
}: {
  attempt: AuthAttempt;
  userId: string;
  actor: AdminActor;
}): Promise<{ ok: true } | { ok: false; reason: "not_found" | "verified" } | RateLimited> {
  const record = await getUserRecord({ db: attempt.db, userId });
  if (!record) return { ok: false, reason: "not_found" };
  if (record.emailVerified) return { ok: false, reason: "verified" };
  const sent = await resendVerification({ ...attempt, headers: new Headers(), email: record.email, floorMs: 0 });
  if (!sent.ok) return sent;
  await recordAdminAction(attempt.db, actor, {
    action: "user.resendVerification",
    targetType: "user",
    targetId: record.id,
    targetLabel: record.email,
  });
  return { ok: true };
}
