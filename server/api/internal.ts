import { Hono } from "hono";
import { createMiddleware } from "hono/factory";
import type { AppEnv, ServerState } from "#server/http/app.ts";
import { errorResponse, serviceUnavailable } from "#server/http/api-error.ts";
import type { Runtime } from "#server/runtime.ts";
import type { Db } from "#server/db/client.ts";
import type { Viewer } from "#common/viewer.ts";
import { sessionOf } from "#server/http/auth.ts";
import { getBalance } from "#server/modules/credits/ledger.ts";
import { AppError } from "#server/errors.ts";
import { consumeRateLimit } from "#server/modules/rate-limits/consume-rate-limit.ts";
import { submitGeneration } from "#server/modules/generation/submit-generation.ts";
import { getGeneration, mediaView } from "#server/modules/generation/get-generation.ts";
import { listGenerations } from "#server/modules/generation/list-generations.ts";
import { cancelGeneration } from "#server/modules/generation/cancel-generation.ts";
import { deleteGeneration } from "#server/modules/generation/delete-generation.ts";
import { setVisibility } from "#server/modules/generation/set-visibility.ts";
import { saveInputImage } from "#server/modules/generation/save-input-image.ts";
import { listModels } from "#server/modules/generation/list-models.ts";
import { listApiKeys } from "#server/modules/api-keys/list-api-keys.ts";
import { createApiKey } from "#server/modules/api-keys/create-api-key.ts";
import { deleteApiKey } from "#server/modules/api-keys/delete-api-key.ts";
import { setApiKeyStatus } from "#server/modules/api-keys/set-api-key-status.ts";
import { getWebhookSecret, getWebhookSecretInfo, rotateWebhookSecret } from "#server/modules/webhooks/secret.ts";
import { listWebhookDeliveries } from "#server/modules/webhooks/list-deliveries.ts";

/**
 * The internal API the pages call with their session cookie. Every route needs a session (`signedIn`): without one
 * the answer is 401 with a code the browser turns into the right message (sign in first, or the session has expired).
 */
export function internalApi(state: ServerState) {
  const api = new Hono<AppEnv>();
  /** The guard of every route: the signed-in viewer and the ready runtime, for the handlers behind it. */
  const signedIn = createMiddleware<AppEnv & { Variables: { viewer: Viewer; runtime: Runtime } }>(async (c, next) => {
    const runtime = state.runtime;
    if (!runtime) {
      return serviceUnavailable(c);
    }
    const session = await sessionOf(c, state);
    for (const cookie of session.setCookies) c.header("Set-Cookie", cookie, { append: true });
    if (!session.viewer) return errorResponse(c, new AppError(session.expired ? "session_expired" : "unauthorized"));
    c.set("viewer", session.viewer);
    c.set("runtime", runtime);
    await next();
  });

  api.get("/me", signedIn, async (c) => {
    const viewer = c.get("viewer");
    const credits = await getBalance({ db: c.get("runtime").database.db, userId: viewer.id });
    return c.json({ user: viewer, credits });
  });

  /** Jobs and uploads a user may start per minute, on every instance together. */
  const limited = async (db: Db, userId: string, what: "submit" | "upload") => {
    const verdict = await consumeRateLimit({
      db,
      key: `${what}:user:${userId}`,
      rule: { window: 60, max: what === "submit" ? 60 : 30 },
    });
    if (!verdict.allowed) throw new AppError("rate_limited", `retry in ${verdict.retryAfter} s`);
  };
  const json = async (c: { req: { json(): Promise<unknown> } }) => {
    try {
      return await c.req.json();
    } catch {
      throw new AppError("bad_request", "the body is not JSON");
    }
  };

  api.get("/models", signedIn, (c) => c.json({ models: listModels(c.get("runtime").env) }));

  api.post("/generations", signedIn, async (c) => {
    const viewer = c.get("viewer");
    await limited(c.get("runtime").database.db, viewer.id, "submit");
    const { database, env, storage, boss } = c.get("runtime");
    const { id, repeated } = await submitGeneration(
      { db: database.db, boss, env, storage },
      { user: viewer, input: await json(c), source: "web", idempotencyKey: c.req.header("idempotency-key") },
    );
    const generation = await getGeneration({ db: database.db, env, id, viewerId: viewer.id });
    return c.json({ generation }, repeated ? 200 : 201);
  });

  api.get("/generations", signedIn, async (c) =>
    c.json(
      await listGenerations({ db: c.get("runtime").database.db, userId: c.get("viewer").id, query: c.req.query() }),
    ),
  );

  api.get("/generations/:id", signedIn, async (c) => {
    const { database, env } = c.get("runtime");
    const generation = await getGeneration({
      db: database.db,
      env,
      id: c.req.param("id"),
      viewerId: c.get("viewer").id,
    });
    c.header("Cache-Control", "no-store");
    return c.json({ generation });
  });

  api.post("/generations/:id/cancel", signedIn, async (c) => {
    const { database, boss, env } = c.get("runtime");
    const viewerId = c.get("viewer").id;
    await cancelGeneration({ db: database.db, boss, env, userId: viewerId, id: c.req.param("id") });
    return c.json({ generation: await getGeneration({ db: database.db, env, id: c.req.param("id"), viewerId }) });
  });

  api.patch("/generations/:id", signedIn, async (c) => {
    const { database, env } = c.get("runtime");
    const viewerId = c.get("viewer").id;
    const body = (await json(c)) as { visibility?: unknown };
    await setVisibility({
      db: database.db,
      userId: viewerId,
      id: c.req.param("id"),
      visibility: body.visibility as "public",
    });
    return c.json({ generation: await getGeneration({ db: database.db, env, id: c.req.param("id"), viewerId }) });
  });

  api.delete("/generations/:id", signedIn, async (c) => {
    const { database, storage } = c.get("runtime");
    await deleteGeneration({ db: database.db, storage, userId: c.get("viewer").id, id: c.req.param("id") });
    return c.body(null, 204);
  });

  api.post("/uploads", signedIn, async (c) => {
    const viewer = c.get("viewer");
    await limited(c.get("runtime").database.db, viewer.id, "upload");
    let file: unknown;
    try {
      file = (await c.req.formData()).get("file");
    } catch {
      throw new AppError("bad_request", "expected a multipart form with a file");
    }
    if (!(file instanceof File)) throw new AppError("input_image_required", "the form has no file");
    const { database, storage } = c.get("runtime");
    const saved = await saveInputImage({
      db: database.db,
      storage,
      userId: viewer.id,
      bytes: new Uint8Array(await file.arrayBuffer()),
    });
    return c.json({ upload: mediaView({ ...saved, durationMs: null, thumbKey: null }) }, 201);
  });

  api.get("/keys", signedIn, async (c) => {
    c.header("Cache-Control", "no-store");
    return c.json({ keys: await listApiKeys({ db: c.get("runtime").database.db, userId: c.get("viewer").id }) });
  });

  api.post("/keys", signedIn, async (c) => {
    const created = await createApiKey({
      db: c.get("runtime").database.db,
      userId: c.get("viewer").id,
      input: await json(c),
    });
    c.header("Cache-Control", "no-store");
    return c.json(created, 201);
  });

  api.patch("/keys/:id", signedIn, async (c) => {
    const key = await setApiKeyStatus({
      db: c.get("runtime").database.db,
      userId: c.get("viewer").id,
      id: c.req.param("id"),
      input: await json(c),
    });
    return c.json({ key });
  });

  api.get("/webhooks", signedIn, async (c) => {
    const db = c.get("runtime").database.db;
    const userId = c.get("viewer").id;
    c.header("Cache-Control", "no-store");
    const [secret, deliveries] = await Promise.all([
      getWebhookSecretInfo({ db, userId }),
      listWebhookDeliveries({ db, userId }),
    ]);
    return c.json({ secret, deliveries });
  });

  api.get("/webhooks/secret", signedIn, async (c) => {
    c.header("Cache-Control", "no-store");
    return c.json({ secret: await getWebhookSecret({ db: c.get("runtime").database.db, userId: c.get("viewer").id }) });
  });

  api.post("/webhooks/secret", signedIn, async (c) => {
    c.header("Cache-Control", "no-store");
    return c.json({
      secret: await rotateWebhookSecret({ db: c.get("runtime").database.db, userId: c.get("viewer").id }),
    });
  });

  api.delete("/keys/:id", signedIn, async (c) => {
    await deleteApiKey({ db: c.get("runtime").database.db, userId: c.get("viewer").id, id: c.req.param("id") });
    return c.body(null, 204);
  });

  return api;
}
