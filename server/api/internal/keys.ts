import { isLocale, type Locale } from "#common/locales.ts";
import { Hono } from "hono";
import type { AppEnv } from "#server/http/request-context.ts";
import type { ServerState } from "#server/http/state.ts";
import { listApiKeys } from "#server/modules/api-keys/list-api-keys.ts";
import { createApiKey } from "#server/modules/api-keys/create-api-key.ts";
import { deleteApiKey } from "#server/modules/api-keys/delete-api-key.ts";
import { setApiKeyStatus } from "#server/modules/api-keys/set-api-key-status.ts";
import { getWebhookSecret, getWebhookSecretInfo, rotateWebhookSecret } from "#server/modules/webhooks/secret.ts";
import { listWebhookDeliveries } from "#server/modules/webhooks/list-deliveries.ts";
import { limitAccountAction } from "#server/modules/rate-limits/account-actions.ts";
import { jsonBody, signedIn } from "./signed-in.ts";

/** The API keys page: its keys (`/api/keys…`), and the webhook signing secret and deliveries (`/api/webhooks…`). */
export function keyRoutes(state: ServerState) {
  const guard = signedIn(state);
  return new Hono<AppEnv>()
    .get("/keys", guard, async (c) => {
      c.header("Cache-Control", "no-store");
      return c.json({ keys: await listApiKeys({ db: c.var.runtime.database.db, userId: c.var.viewer.id }) });
    })
    .post("/keys", guard, async (c) => {
      await limitAccountAction(c.var.runtime.database.db, c.var.viewer.id, "createKey");
      const created = await createApiKey({
        db: c.var.runtime.database.db,
        userId: c.var.viewer.id,
        input: await jsonBody(c),
        locale: [c.req.header("X-Locale"), c.var.viewer.locale].find((l): l is Locale => isLocale(l)),
      });
      c.header("Cache-Control", "no-store");
      return c.json(created, 201);
    })
    .patch("/keys/:id", guard, async (c) => {
      await limitAccountAction(c.var.runtime.database.db, c.var.viewer.id, "changeKey");
      const key = await setApiKeyStatus({
        db: c.var.runtime.database.db,
        userId: c.var.viewer.id,
        id: c.req.param("id"),
        input: await jsonBody(c),
      });
      return c.json({ key });
    })
    .delete("/keys/:id", guard, async (c) => {
      await limitAccountAction(c.var.runtime.database.db, c.var.viewer.id, "changeKey");
      await deleteApiKey({ db: c.var.runtime.database.db, userId: c.var.viewer.id, id: c.req.param("id") });
      return c.body(null, 204);
    })
    .get("/webhooks", guard, async (c) => {
      const db = c.var.runtime.database.db;
      const userId = c.var.viewer.id;
      c.header("Cache-Control", "no-store");
      const [secret, deliveries] = await Promise.all([
        getWebhookSecretInfo({ db, userId }),
        listWebhookDeliveries({ db, userId }),
      ]);
      return c.json({ secret, deliveries });
    })
    .get("/webhooks/secret", guard, async (c) => {
      c.header("Cache-Control", "no-store");
      return c.json({ secret: await getWebhookSecret({ db: c.var.runtime.database.db, userId: c.var.viewer.id }) });
    })
    .post("/webhooks/secret", guard, async (c) => {
      await limitAccountAction(c.var.runtime.database.db, c.var.viewer.id, "rotateWebhookSecret");
      c.header("Cache-Control", "no-store");
      return c.json({ secret: await rotateWebhookSecret({ db: c.var.runtime.database.db, userId: c.var.viewer.id }) });
    });
}
