import { isAPIError } from "better-auth/api";
import type { Logger } from "pino";
import type { Db } from "#server/db/client.ts";
import {
  consumeRateLimit,
  consumeRateLimits,
  refundRateLimit,
  type RateLimitResult,
  type RateLimitRule,
} from "#server/modules/rate-limits/consume-rate-limit.ts";
import type { Auth } from "./auth.ts";
import { AUTH_ANSWER_FLOOR_MS } from "./policy.ts";

/** What every sign-in form's use case is given: the authentication library, the database, and who is asking. */
export interface AuthAttempt {
  auth: Auth;
  db: Db;
  logger: Logger;
  /** The request's headers, handed to the authentication library (its cookies, user agent, client address). */
  headers: Headers;
  clientIp: string;
  /** How long refusals take at least (AUTH_ANSWER_FLOOR_MS unless given). */
  floorMs?: number;
}

/** Refused for too many attempts: try again in this many minutes (at least one), or seconds (`Retry-After`). */
export interface RateLimited {
  ok: false;
  reason: "rate_limited";
  minutes: number;
  retryAfter: number;
}

const refusal = (result: RateLimitResult): RateLimited => ({
  ok: false,
  reason: "rate_limited",
  minutes: Math.max(1, Math.ceil(result.retryAfter / 60)),
  retryAfter: Math.max(1, result.retryAfter),
});

/** Counts this attempt against each rule; the refusal when one of them is exceeded. */
export async function countAttempt(
  db: Db,
  checks: Array<{ key: string; rule: RateLimitRule }>,
): Promise<RateLimited | null> {
  const result = await consumeRateLimits(db, checks);
  return result.allowed ? null : refusal(result);
}

/** A password check counted before it runs; `refund` gives the count back when the password was right. */
export interface Reservation {
  ok: true;
  /** Attempts counted in the window, this one included. */
  count: number;
  refund(): Promise<void>;
}

/**
 * Counts a password check against `rule` before it is made, so that the budget holds however many attempts arrive
 * at once, on however many instances (one atomic upsert per attempt): past the budget the attempt is refused
 * unchecked. Only failures should stay counted: a right password gives its count back with `refund`.
 */
export async function reserveAttempt(db: Db, key: string, rule: RateLimitRule): Promise<Reservation | RateLimited> {
  const result = await consumeRateLimit({ db, key, rule });
  if (!result.allowed) return refusal(result);
  return { ok: true, count: result.count, refund: () => refundRateLimit({ db, key, window: result.window }) };
}

/** Waits until `floor` ms have passed since `started`, so that fast and slow paths answer alike. */
export async function answerFloor(started: number, floor = AUTH_ANSWER_FLOOR_MS) {
  const left = started + floor - Date.now();
  if (left > 0) await new Promise((resolve) => setTimeout(resolve, left));
}

/** The authentication library's error code, if that is what was thrown. */
export function authErrorCode(error: unknown): string | undefined {
  if (!isAPIError(error)) return undefined;
  const body = error.body as { code?: string } | undefined;
  return body?.code ?? String(error.status);
}
