import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { ServerState } from "#server/http/state.ts";
import { runtimeReady } from "#server/http/runtime-gate.ts";
import { errorResponse } from "#server/http/api-error.ts";
import { AppError } from "#server/errors.ts";
import { verifyApiKey, type ApiLimits, type VerifiedKey } from "#server/modules/api-keys/verify-api-key.ts";
import type { ApiEnv, BearerEnv, KeyEnv } from "./env.ts";

const CHALLENGE = { "WWW-Authenticate": 'Bearer realm="atelier"' };

/** A refusal of the key (401) carries the challenge; a refusal of its rate (429) says when to come back. */
export function refuse<E extends ApiEnv>(c: Context<E>, error: AppError): Response {
  return errorResponse(c, error, error.status === 401 ? CHALLENGE : (c.get("apiLimits") ?? {}));
}

/**
 * Takes a key's verdict: its rate-limit headers are kept for the answer and, beyond the limit, `rate_limited` is
 * thrown. Returns the key's owner.
 */
export function admit<E extends ApiEnv>(c: Context<E>, key: VerifiedKey): string {
  const limits: Record<string, string> = {
    "RateLimit-Policy": `${key.limit};w=60`,
    RateLimit: `limit=${key.limit}, remaining=${key.remaining}, reset=${key.resetSeconds}`,
  };
  if (!key.allowed) limits["Retry-After"] = String(Math.max(1, key.resetSeconds));
  c.set("apiLimits", limits);
  if (!key.allowed) {
    throw new AppError(
      "rate_limited",
      key.refusedBy === "account"
        ? `at most ${key.accountLimit} requests per minute for all of an account's keys together`
        : `at most ${key.limit} requests per minute per key`,
    );
  }
  return key.userId;
}

const bearerOf = (c: Context) => /^Bearer\s+(\S+)\s*$/i.exec(c.req.header("authorization") ?? "")?.[1];

/**
 * The guard of a public API route: the runtime gate, then the bearer key. Its answer gets the key's rate-limit
 * headers and is never cached. `verify` checks and counts the key here (the handler reads `c.var.apiUserId`);
 * `deferred` leaves that to the handler (`c.var.apiBearer`), which checks it in the statement it reads with.
 */
function guard<E extends ApiEnv>(state: ServerState, take: (c: Context<E>, bearer: string) => Promise<void>) {
  const ready = runtimeReady<E>(state);
  return createMiddleware<E>((c, next) =>
    ready(c, async () => {
      const bearer = bearerOf(c);
      if (!bearer) throw new AppError("invalid_api_key", "send the key as Authorization: Bearer <key>");
      await take(c, bearer);
      await next();
      const limits: Record<string, string> = c.get("apiLimits") ?? {};
      for (const [name, value] of Object.entries(limits)) c.res.headers.set(name, value);
      c.res.headers.set("Cache-Control", "no-store");
    }),
  );
}

export function apiKey(state: ServerState, options: { limits: ApiLimits }) {
  return guard<KeyEnv>(state, async (c, secret) => {
    const key = await verifyApiKey({
      db: c.var.runtime.database.counters,
      secret,
      limits: options.limits,
    });
    c.set("apiUserId", admit(c, key));
    c.set("apiKeyId", key.keyId);
  });
}

export function deferredApiKey(state: ServerState) {
  return guard<BearerEnv>(state, async (c, bearer) => {
    c.set("apiBearer", bearer);
  });
}
