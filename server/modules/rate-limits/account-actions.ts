import type { Db } from "#server/db/client.ts";
import { AppError } from "#server/errors.ts";
import { consumeRateLimit, type RateLimitRule } from "./consume-rate-limit.ts";

/** What one account may do through the studio and the API keys page, per window, on every instance together. */
export const ACCOUNT_ACTION_LIMITS = {
  /** Generations started. */
  submit: { window: 60, max: 60 },
  /** Input images uploaded. */
  upload: { window: 60, max: 30 },
  /** API keys created. */
  createKey: { window: 60 * 60, max: 20 },
  /** API keys deactivated, activated or deleted. */
  changeKey: { window: 60 * 60, max: 60 },
  /** New webhook signing secrets. */
  rotateWebhookSecret: { window: 60 * 60, max: 10 },
  /** Chat answers started (questions, regenerated answers). */
  chat: { window: 60, max: 30 },
  /** Chat conversations started. */
  createConversation: { window: 60, max: 30 },
  /** Chat folders made. */
  createFolder: { window: 60 * 60, max: 30 },
  /** Read-only links to conversations made (each one replaces the conversation's previous link). */
  shareConversation: { window: 60 * 60, max: 30 },
  /**
   * Conversations renamed, pinned, filed, switched to another branch or model, or deleted; folders renamed or
   * deleted; links withdrawn.
   */
  changeChat: { window: 60, max: 120 },
} satisfies Record<string, RateLimitRule>;

export type AccountAction = keyof typeof ACCOUNT_ACTION_LIMITS;

/** Counts one `action` by the account; past its limit, `rate_limited` (429) saying when to try again. */
export async function limitAccountAction(db: Db, userId: string, action: AccountAction): Promise<void> {
  const verdict = await consumeRateLimit({ db, key: `${action}:user:${userId}`, rule: ACCOUNT_ACTION_LIMITS[action] });
  if (!verdict.allowed) throw new AppError("rate_limited", `retry in ${verdict.retryAfter} s`);
}
