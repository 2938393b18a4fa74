import { createHash } from "node:crypto";
import type { Context, HonoRequest, Next } from "hono";
import type { Db } from "#server/db/client.ts";
import type { IdempotentAnswerKind } from "#server/db/schema/index.ts";
import { AppError } from "#server/errors.ts";
import { createMiddleware } from "hono/factory";
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  lapseIdempotencyKey,
  releaseIdempotencyKey,
} from "#server/modules/api-keys/idempotency.ts";
import type { KeyEnv } from "./env.ts";

const sha256 = (data: string | Uint8Array) => createHash("sha256").update(data).digest("hex");

/** A value with its objects' keys sorted, so that the same JSON written in another order is the same request. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}

/**
 * What a request asks for, as one hash: its method, path and body. A JSON body counts by its value, not its
 * spelling; a form by its fields, each file by its bytes (a retry's multipart boundary is a new one).
 */
export async function fingerprintOf(req: HonoRequest): Promise<string> {
  const type = (req.header("content-type") ?? "").toLowerCase();
  let body: unknown;
  if (type.startsWith("multipart/form-data") || type.startsWith("application/x-www-form-urlencoded")) {
    const fields: [string, string][] = [];
    // A form that cannot be read is the request's fault, said before anything else reads it.
    const form = await req.formData().catch(() => {
      throw new AppError("bad_request", "the form could not be read", { values: { field: "body" } });
    });
    for (const [name, value] of form) {
      fields.push([
        name,
        typeof value === "string" ? value : `file:${sha256(new Uint8Array(await value.arrayBuffer()))}`,
      ]);
    }
    body = fields.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  } else {
    const text = await req.text();
    try {
      body = text === "" ? null : canonical(JSON.parse(text));
    } catch {
      body = text;
    }
  }
  return sha256(JSON.stringify([req.method, req.path, body]));
}

/**
 * Makes a POST safe to retry. With an `Idempotency-Key`, the first request runs and its answer is kept for 24 hours:
 * the same key with the same request is answered with it again (`Idempotent-Replayed: true`); with another request
 * it is `idempotency_mismatch`, and while the first still runs `idempotency_in_flight`. An answer worth retrying
 * (a server failure, a limit or conflict that passes) or a request refused before its handler ran is not kept.
 */
export const idempotent = createMiddleware<KeyEnv>(async (c, next) => {
  const key = c.req.header("idempotency-key");
  if (key === undefined) return next();
  const db = c.var.runtime.database.db;
  const userId = c.var.apiUserId;
  const claim = await claimIdempotencyKey({ db, userId, key, fingerprint: await fingerprintOf(c.req) });
  if (claim.kind === "replay") return replay(c, claim);
  await runClaimed(c, next, { db, userId, key });
});

/** A kept answer, sent again. */
export function replay(c: Context, claim: { status: number; body: string }): Response {
  return c.body(claim.body, claim.status as 201, { "Content-Type": "application/json", "Idempotent-Replayed": "true" });
}

/**
 * What a request's handler says of its answer, for its key: `pending`, its work goes on and the key is left to be
 * taken over at once (the request repeated runs again on the same work); `kept`, what to keep instead of the answer
 * itself (a stream's description, or a note that the answer is made again from the request's jobs).
 */
export type ClaimedAnswer =
  { kind: "pending" } | { kind: "kept"; answerKind: IdempotentAnswerKind; status: number; body: string };

/**
 * Runs a request under the key it claimed, then keeps its answer for the key's replays, or gives the key up when the
 * answer is worth retrying (a server failure, a limit or conflict that passes, a stream with nothing kept of it, a
 * request refused before its handler ran). `answer` says what the handler made of its answer, if anything.
 */
export async function runClaimed<E extends KeyEnv>(
  c: Context<E>,
  next: Next,
  owner: { db: Db; userId: string; key: string },
  answer?: () => ClaimedAnswer | undefined,
) {
  try {
    await next();
  } catch (error) {
    await releaseIdempotencyKey(owner);
    throw error;
  }
  const status = c.res.status;
  const streamed = (c.res.headers.get("content-type") ?? "").startsWith("text/event-stream");
  const said = answer?.();
  if (said?.kind === "pending") await lapseIdempotencyKey(owner);
  else if (said?.kind === "kept" && status < 400) await completeIdempotencyKey({ ...owner, ...said });
  else if (c.get("invalidRequest") || streamed || status >= 500 || status === 409 || status === 429)
    await releaseIdempotencyKey(owner);
  else await completeIdempotencyKey({ ...owner, status, body: await c.res.clone().text() });
}
