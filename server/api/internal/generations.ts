import { requestLocale } from "#server/http/api-error.ts";
import { Hono } from "hono";
import type { AppEnv } from "#server/http/request-context.ts";
import type { ServerState } from "#server/http/state.ts";
import { AppError } from "#server/errors.ts";
import { limitAccountAction } from "#server/modules/rate-limits/account-actions.ts";
import { submitGeneration } from "#server/modules/generation/submit-generation.ts";
import { getGeneration, mediaView } from "#server/modules/generation/get-generation.ts";
import { listGenerations } from "#server/modules/generation/list-generations.ts";
import { cancelGeneration } from "#server/modules/generation/cancel-generation.ts";
import { deleteGeneration } from "#server/modules/generation/delete-generation.ts";
import { setVisibility } from "#server/modules/generation/set-visibility.ts";
import { saveInputImage } from "#server/modules/generation/save-input-image.ts";
import { jsonBody, signedIn } from "./signed-in.ts";

/** The studios' generations (`/api/generations…`) and their input images (`/api/uploads`). */
export function generationRoutes(state: ServerState) {
  const guard = signedIn(state);
  return new Hono<AppEnv>()
    .post("/generations", guard, async (c) => {
      const { viewer, runtime } = c.var;
      const { database, env, storage, boss } = runtime;
      await limitAccountAction(database.db, viewer.id, "submit");
      const { id, repeated } = await submitGeneration(
        { db: database.db, boss, env, storage, settings: runtime.settings, models: runtime.models },
        {
          user: viewer,
          input: await jsonBody(c),
          source: "web",
          locale: requestLocale(c),
          idempotencyKey: c.req.header("idempotency-key"),
        },
      );
      const generation = await getGeneration({ db: database.db, env, id, viewerId: viewer.id });
      return c.json({ generation }, repeated ? 200 : 201);
    })
    .get("/generations", guard, async (c) =>
      c.json(await listGenerations({ db: c.var.runtime.database.db, userId: c.var.viewer.id, query: c.req.query() })),
    )
    .get("/generations/:id", guard, async (c) => {
      const { database, env } = c.var.runtime;
      const generation = await getGeneration({
        db: database.db,
        env,
        id: c.req.param("id"),
        viewerId: c.var.viewer.id,
      });
      c.header("Cache-Control", "no-store");
      return c.json({ generation });
    })
    .post("/generations/:id/cancel", guard, async (c) => {
      const { database, boss, env } = c.var.runtime;
      const viewerId = c.var.viewer.id;
      const id = c.req.param("id");
      await cancelGeneration({ db: database.db, boss, env, userId: viewerId, id });
      return c.json({ generation: await getGeneration({ db: database.db, env, id, viewerId }) });
    })
    .patch("/generations/:id", guard, async (c) => {
      const { database, env, settings } = c.var.runtime;
      const viewerId = c.var.viewer.id;
      const id = c.req.param("id");
      const body = (await jsonBody(c)) as { visibility?: unknown };
      await setVisibility({
        db: database.db,
        userId: viewerId,
        id,
        visibility: body.visibility as "public",
        settings: settings.current(),
        locale: requestLocale(c),
        role: c.var.viewer.role,
      });
      return c.json({ generation: await getGeneration({ db: database.db, env, id, viewerId }) });
    })
    .delete("/generations/:id", guard, async (c) => {
      const { database, storage } = c.var.runtime;
      await deleteGeneration({ db: database.db, storage, userId: c.var.viewer.id, id: c.req.param("id") });
      return c.body(null, 204);
    })
    .post("/uploads", guard, async (c) => {
      const { viewer, runtime } = c.var;
      await limitAccountAction(runtime.database.db, viewer.id, "upload");
      let form: FormData;
      try {
        form = await c.req.formData();
      } catch {
        throw new AppError("bad_request", "expected a multipart form with a file");
      }
      const file = form.get("file");
      if (!(file instanceof File)) throw new AppError("input_image_required", "the form has no file");
      const saved = await saveInputImage({
        db: runtime.database.db,
        storage: runtime.storage,
        userId: viewer.id,
        bytes: new Uint8Array(await file.arrayBuffer()),
        // A painted mask is kept as a lossless grey PNG (white: what changes), never as a lossy picture.
        mask: form.get("purpose") === "mask",
      });
      return c.json({ upload: mediaView({ ...saved, durationMs: null, thumbKey: null }) }, 201);
    });
}
