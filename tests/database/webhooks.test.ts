import http from "node:http";
import type { AddressInfo } from "node:net";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_DATABASE_URL, waitFor } from "#tests/support/server.ts";
import { openApp } from "#tests/support/in-process.ts";
import { Writable } from "node:stream";
import { eq } from "drizzle-orm";
import { pino } from "pino";
import { ACCOUNT_ACTION_LIMITS } from "#server/modules/rate-limits/account-actions.ts";
import { deliverWebhook } from "#server/modules/webhooks/deliver-webhook.ts";
import { user, webhookDelivery } from "#server/db/schema/index.ts";

const backend = TEST_DATABASE_URL ? "PostgreSQL" : "PGlite";

interface Hit {
  path: string;
  headers: Record<string, string>;
  body: string;
  at: number;
}
interface Delivery {
  id: string;
  event: string;
  generationId: string | null;
  url: string;
  status: string;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
}
interface SecretView {
  secret: string;
  previousExpiresAt: string | null;
}
interface WebhookBody {
  type: string;
  timestamp: string;
  data: { id: string; status: string; outputs: Array<{ url: string }>; webhook_url: string | null };
}

/**
 * A receiver on this machine (the server is told to allow private networks, as an operator would for their own
 * services): `/flaky` answers 503 twice, then 200; `/ok` always 204; `/moved` a redirect.
 */
function startReceiver() {
  const hits: Hit[] = [];
  const flaky = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const headers = Object.fromEntries(
        Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(", ") : (v ?? "")]),
      );
      const path = new URL(req.url ?? "/", "http://receiver").pathname;
      hits.push({ path, headers, body: Buffer.concat(chunks).toString("utf8"), at: Date.now() });
      if (path === "/flaky") {
        const id = headers["webhook-id"]!;
        const seen = (flaky.get(id) ?? 0) + 1;
        flaky.set(id, seen);
        res.writeHead(seen <= 2 ? 503 : 200).end(seen <= 2 ? "busy" : "thanks");
      } else if (path === "/moved") {
        res.writeHead(302, { Location: "/ok" }).end();
      } else {
        res.writeHead(204).end();
      }
    });
  });
  return new Promise<{ url: string; hits: Hit[]; close(): Promise<void> }>((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}`,
        hits,
        close: () => new Promise((r) => server.close(() => r())),
      });
    });
  });
}

describe(`webhooks on ${backend}`, () => {
  let app: Awaited<ReturnType<typeof openApp>>;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let alice: string;
  let aliceKey: string;
  let validateEvent: (body: unknown) => boolean;

  const page = (method: string, path: string, cookie: string, body?: unknown) =>
    app.call(method, path, { cookie, body });
  const request = (path: string, init: RequestInit) => app.app.request(`${app.origin}${path}`, init);
  const newKey = async (cookie: string) =>
    ((await (await page("POST", "/api/keys", cookie, {})).json()) as { secret: string }).secret;
  const settings = async (cookie: string) =>
    (await (await page("GET", "/api/webhooks", cookie)).json()) as {
      secret: Omit<SecretView, "secret">;
      deliveries: Delivery[];
    };
  const secretOf = async (cookie: string) =>
    ((await (await page("GET", "/api/webhooks/secret", cookie)).json()) as { secret: SecretView }).secret.secret;
  const create = (key: string, path: "/images" | "/videos", body: object) =>
    request(`/api/v1${path}`, {
      method: "POST",
      headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
  const hitsTo = (path: string, id?: string) =>
    receiver.hits.filter((h) => h.path === path && (!id || (JSON.parse(h.body) as WebhookBody).data.id === id));

  beforeAll(async () => {
    receiver = await startReceiver();
    app = await openApp({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: "on", WEBHOOK_RETRY_DELAY_SECONDS: "1" });
    alice = await app.signedIn("alice@example.com");
    aliceKey = await newKey(alice);
    const doc = (await (await request("/api/v1/openapi.json", {})).json()) as object;
    const ajv = new Ajv2020({ strict: false });
    addFormats.default(ajv);
    ajv.addSchema(doc, "openapi");
    validateEvent = ajv.compile({ $ref: "openapi#/components/schemas/WebhookEvent" });
  });
  afterAll(async () => {
    await app?.close();
    await receiver?.close();
  });

  it("delivers a signed message that the Standard Webhooks library verifies, after the receiver fails twice", async () => {
    // The list never carries the secret itself; it is asked for separately
    expect((await settings(alice)).secret).not.toHaveProperty("secret");
    const secret = await secretOf(alice);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

    const res = await create(aliceKey, "/images", {
      model: "demo-image",
      prompt: "A kite over dunes",
      webhook_url: `${receiver.url}/flaky`,
    });
    expect(res.status).toBe(201);
    const created = (await res.json()) as { id: string; webhook_url: string };
    expect(created.webhook_url).toBe(`${receiver.url}/flaky`);

    await waitFor("three attempts at the flaky receiver", async () => hitsTo("/flaky", created.id).length >= 3, {
      timeoutMs: 60_000,
      output: () => JSON.stringify(receiver.hits.map((h) => [h.path, h.at])),
    });
    await waitFor("the message to be marked delivered", async () => {
      const [latest] = (await settings(alice)).deliveries;
      return latest?.status === "delivered";
    });
    const attempts = hitsTo("/flaky", created.id);
    expect(attempts).toHaveLength(3);
    // The same message each time: one id, one body; each attempt signed afresh, later ones after a wait
    expect(new Set(attempts.map((h) => h.headers["webhook-id"])).size).toBe(1);
    expect(new Set(attempts.map((h) => h.body)).size).toBe(1);
    expect(attempts[2]!.at - attempts[0]!.at).toBeGreaterThanOrEqual(2000);

    const hook = new Webhook(secret);
    for (const attempt of attempts) {
      expect(attempt.headers["content-type"]).toBe("application/json");
      const now = Math.floor(Date.now() / 1000);
      expect(Math.abs(Number(attempt.headers["webhook-timestamp"]) - now)).toBeLessThan(120);
      hook.verify(attempt.body, attempt.headers);
    }
    const message = JSON.parse(attempts[2]!.body) as WebhookBody;
    expect(validateEvent(message)).toBe(true);
    expect(message).toMatchObject({
      type: "generation.succeeded",
      data: { id: created.id, status: "succeeded", webhook_url: `${receiver.url}/flaky` },
    });
    expect(message.data.outputs).toHaveLength(1);
    expect(message.data.outputs[0]!.url.startsWith(`${app.origin}/media/`)).toBe(true);

    // A changed body, another secret, or a replayed old timestamp do not verify
    const last = attempts[2]!;
    expect(() => hook.verify(last.body.replace("succeeded", "failed"), last.headers)).toThrow();
    expect(() =>
      new Webhook(`whsec_${Buffer.alloc(32, 7).toString("base64")}`).verify(last.body, last.headers),
    ).toThrow();
    expect(() =>
      hook.verify(last.body, { ...last.headers, "webhook-timestamp": String(Math.floor(Date.now() / 1000) - 3600) }),
    ).toThrow();

    const [delivery] = (await settings(alice)).deliveries;
    expect(delivery).toMatchObject({
      id: last.headers["webhook-id"],
      event: "generation.succeeded",
      generationId: created.id,
      tool: "text-to-image",
      status: "delivered",
      attempts: 3,
      lastStatusCode: 200,
      lastError: null,
    });
  });

  it("announces a canceled video, and records a redirect as a failed attempt", async () => {
    const video = await create(aliceKey, "/videos", {
      model: "demo-video",
      prompt: "Rain on a window",
      duration: 10,
      webhook_url: `${receiver.url}/ok`,
    });
    expect(video.status).toBe(201);
    const { id } = (await video.json()) as { id: string };
    const cancel = await request(`/api/v1/generations/${id}/cancel`, {
      method: "POST",
      headers: { Authorization: `Bearer ${aliceKey}` },
    });
    expect(cancel.status).toBe(200);
    await waitFor("the cancel message", async () => hitsTo("/ok", id).length === 1);
    const [hit] = hitsTo("/ok", id);
    const body = new Webhook(await secretOf(alice)).verify(hit!.body, hit!.headers) as WebhookBody;
    expect(body).toMatchObject({ type: "generation.canceled", data: { id, status: "canceled" } });

    const moved = await create(aliceKey, "/images", {
      model: "demo-image",
      prompt: "A door",
      webhook_url: `${receiver.url}/moved`,
    });
    const movedId = ((await moved.json()) as { id: string }).id;
    await waitFor("a first attempt at the redirecting receiver", async () =>
      (await settings(alice)).deliveries.some((d) => d.generationId === movedId && d.attempts >= 1),
    );
    const failedAttempt = (await settings(alice)).deliveries.find((d) => d.generationId === movedId);
    expect(failedAttempt).toMatchObject({ lastStatusCode: 302, lastError: "redirect" });
    expect(failedAttempt!.status).not.toBe("delivered");
    // The redirect is not followed
    expect(hitsTo("/ok", movedId)).toHaveLength(0);
  });

  it("signs with both the new and the previous secret for a day after a rotation", async () => {
    const before = await secretOf(alice);
    const rotated = await page("POST", "/api/webhooks/secret", alice);
    expect(rotated.status).toBe(200);
    const after = ((await rotated.json()) as { secret: SecretView }).secret;
    expect(after.secret).not.toBe(before);
    expect(after.secret).toMatch(/^whsec_/);
    const expires = Date.parse(after.previousExpiresAt!);
    expect(expires - Date.now()).toBeGreaterThan(23 * 3600_000);

    const res = await create(aliceKey, "/images", {
      model: "demo-image",
      prompt: "A compass",
      webhook_url: `${receiver.url}/ok`,
    });
    const { id } = (await res.json()) as { id: string };
    await waitFor("the message after the rotation", async () => hitsTo("/ok", id).length === 1);
    const [hit] = hitsTo("/ok", id);
    expect(hit!.headers["webhook-signature"]!.split(" ")).toHaveLength(2);
    new Webhook(after.secret).verify(hit!.body, hit!.headers);
    new Webhook(before).verify(hit!.body, hit!.headers);

    // A rotation needs the page's session and its CSRF checks
    const forged = await request("/api/webhooks/secret", {
      method: "POST",
      headers: { Cookie: alice, Origin: "https://evil.example", "Sec-Fetch-Site": "cross-site" },
    });
    expect(forged.status).toBe(403);
    expect(await secretOf(alice)).toBe(after.secret);
    expect((await settings(alice)).secret.previousExpiresAt).toBe(after.previousExpiresAt);
  });

  it("ends at once, without an error in the log, a message whose address the policy refuses when it is sent", async () => {
    const db = app.runtime.database.db;
    const [owner] = await db.select({ id: user.id }).from(user).where(eq(user.email, "alice@example.com"));
    // A URL accepted when the request came (as a public host name would be) whose address is private when sent.
    const [delivery] = await db
      .insert(webhookDelivery)
      .values({
        userId: owner!.id,
        event: "generation.succeeded",
        url: "https://10.20.30.40/hooks/atelier",
        payload: JSON.stringify({ type: "generation.succeeded", timestamp: new Date().toISOString(), data: {} }),
      })
      .returning({ id: webhookDelivery.id });
    const lines: Array<{ level: number; msg: string }> = [];
    const logger = pino(
      { level: "debug" },
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          lines.push(JSON.parse(chunk.toString()) as { level: number; msg: string });
          done();
        },
      }),
    );
    // The policy of a server that keeps webhooks on the public internet; no retry is asked for (nothing is thrown).
    await deliverWebhook(
      { db, env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: false }, logger, describe: async () => null },
      { deliveryId: delivery!.id },
    );
    const shown = (await settings(alice)).deliveries.find((d) => d.id === delivery!.id);
    expect(shown).toMatchObject({ status: "failed", attempts: 1, lastError: "refused", lastStatusCode: null });
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.filter((l) => l.level >= 50)).toEqual([]);
  });

  it("refuses a webhook URL that is not http(s), and keeps each user's secret and messages apart", async () => {
    const refused = await create(aliceKey, "/images", {
      model: "demo-image",
      prompt: "Nothing",
      webhook_url: "ftp://files.example.com/drop",
    });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("webhook_url_refused");

    const bob = await app.signedIn("bob@example.com");
    const bobs = await settings(bob);
    expect(bobs.deliveries).toEqual([]);
    expect(await secretOf(bob)).not.toBe(await secretOf(alice));
    expect((await page("GET", "/api/webhooks", "")).status).toBe(401);
    expect((await page("GET", "/api/webhooks/secret", "")).status).toBe(401);
  });

  it("limits how often one account creates, changes and deletes keys and makes new signing secrets", async () => {
    const carol = await app.signedIn("carol@example.com");
    const limits = ACCOUNT_ACTION_LIMITS;
    const ids: string[] = [];
    for (let i = 0; i < limits.createKey.max; i++) {
      const res = await page("POST", "/api/keys", carol, {});
      expect(res.status).toBe(201);
      ids.push(((await res.json()) as { key: { id: string } }).key.id);
    }
    for (const id of ids) expect((await page("DELETE", `/api/keys/${id}`, carol)).status).toBe(204);
    // Room for keys again, but not for more creations this hour.
    const tooMany = await page("POST", "/api/keys", carol, {});
    expect(tooMany.status).toBe(429);
    expect(((await tooMany.json()) as { error: { code: string } }).error.code).toBe("rate_limited");

    for (let i = 0; i < limits.rotateWebhookSecret.max; i++) {
      expect((await page("POST", "/api/webhooks/secret", carol)).status).toBe(200);
    }
    expect((await page("POST", "/api/webhooks/secret", carol)).status).toBe(429);

    // Changes (deactivating, activating, deleting) share one count: the deletions above used some of it.
    const dave = await app.signedIn("dave@example.com");
    const key = ((await (await page("POST", "/api/keys", dave, {})).json()) as { key: { id: string } }).key.id;
    const statuses: number[] = [];
    for (let i = 0; i <= limits.changeKey.max; i++) {
      const res = await page("PATCH", `/api/keys/${key}`, dave, { status: i % 2 ? "active" : "inactive" });
      statuses.push(res.status);
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(limits.changeKey.max);
    expect(statuses.at(-1)).toBe(429);
    // Other accounts are not touched.
    expect((await page("POST", "/api/keys", alice, {})).status).toBe(201);
  });
});
