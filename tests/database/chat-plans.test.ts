import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApp } from "#tests/support/in-process.ts";
import { readStream, textOf } from "#tests/support/chat-stream.ts";
import { chatConversation, subscription, user } from "#server/db/schema/index.ts";
import { addPlan, changePlan, newPlan } from "#server/modules/billing/edit-plans.ts";
import { CLI_ACTOR } from "#server/modules/audit/record-admin-action.ts";

/*
 * A chat model an operator reserves to a plan is refused to an account on another plan wherever a conversation can
 * use it: starting a conversation with it, switching a conversation to it, asking in a conversation that already uses
 * it, and the OpenAI-compatible `/v1/chat/completions` (`403 plan_required`, the plan named in the person's
 * language). Nothing is held or kept for a refused request; a subscriber and an administrator are answered.
 */
describe("chat models reserved to a plan", () => {
  let app: Awaited<ReturnType<typeof openApp>>;
  let free: string;
  let key: string;

  const db = () => app.runtime.database.db;
  const idOf = async (email: string) =>
    (await db().select({ id: user.id }).from(user).where(eq(user.email, email)))[0]!.id;
  const credits = async (cookie: string) =>
    (
      (await (await app.call("GET", "/api/me", { cookie })).json()) as {
        credits: { balance: number; held: number };
      }
    ).credits;
  const refusal = async (res: Response) => {
    expect(res.status).toBe(403);
    return ((await res.json()) as { error: { code: string; message: string } }).error;
  };
  const reserve = (models: string[]) =>
    changePlan({
      db: db(),
      id: "writer",
      change: (p) => ({ ...p, unlocks: { ...p.unlocks, models } }),
      actor: CLI_ACTOR,
    });

  beforeAll(async () => {
    app = await openApp({ SIGNUP_BONUS_CREDITS: "100" });
    free = await app.signedIn("free-writer@example.com");
    const created = await app.call("POST", "/api/keys", { cookie: free, body: {} });
    key = ((await created.json()) as { secret: string }).secret;
    await addPlan({
      db: db(),
      definition: newPlan({
        id: "writer",
        name: "Writer",
        names: { de: "Schreiber" },
        monthly: { usd: 900 },
        credits: 500,
      }),
      actor: CLI_ACTOR,
    });
  }, 120_000);
  afterAll(async () => {
    await app?.close();
  });

  it("refuses the reserved model to a free account on the page and on /v1, holding and keeping nothing", async () => {
    // Started before the model was reserved: the conversation stays, but asking in it is refused from now on.
    const before = await app.call("POST", "/api/chat/conversations", {
      cookie: free,
      body: { model: "prompt-helper" },
    });
    expect(before.status).toBe(201);
    const { id } = ((await before.json()) as { conversation: { id: string } }).conversation;
    await reserve(["prompt-helper"]);

    const started = await app.call("POST", "/api/chat/conversations", {
      cookie: free,
      body: { model: "prompt-helper" },
      headers: { "X-Locale": "de" },
    });
    const said = await refusal(started);
    expect(said.code).toBe("plan_required");
    expect(said.message).toContain("Schreiber");
    const kept = await db()
      .select()
      .from(chatConversation)
      .where(eq(chatConversation.userId, await idOf("free-writer@example.com")));
    expect(kept.map((c) => c.id)).toEqual([id]);

    const asked = await app.call("POST", `/api/chat/conversations/${id}/messages`, {
      cookie: free,
      body: { text: "ein Leuchtturm im Sturm" },
      headers: { "X-Locale": "de" },
    });
    expect((await refusal(asked)).message).toContain("Schreiber");

    const switched = await app.call("PATCH", `/api/chat/conversations/${id}`, {
      cookie: free,
      body: { model: "prompt-helper" },
    });
    expect((await refusal(switched)).code).toBe("plan_required");

    const v1 = await app.app.request(`${app.origin}/v1/chat/completions`, {
      method: "POST",
      headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
      body: JSON.stringify({ model: "prompt-helper", messages: [{ role: "user", content: "a lighthouse" }] }),
    });
    expect(v1.status).toBe(403);
    const v1Body = JSON.stringify(await v1.json());
    expect(v1Body).toContain("plan_required");
    expect(v1Body).toContain("Writer");

    expect(await credits(free)).toMatchObject({ balance: 100, held: 0 });
  });

  it("answers a subscriber and an administrator, and everyone again once no plan reserves the model", async () => {
    await reserve(["prompt-helper"]);
    const subscriber = await app.signedIn("subscriber-writer@example.com");
    const now = new Date();
    await db()
      .insert(subscription)
      .values({
        userId: await idOf("subscriber-writer@example.com"),
        planId: "writer",
        interval: "monthly",
        status: "active",
        stripeSubscriptionId: "sub_writer_test",
        stripeCustomerId: "cus_writer_test",
        amount: 900,
        currency: "usd",
        currentPeriodStart: now,
        currentPeriodEnd: new Date(now.getTime() + 30 * 86_400_000),
        stripeUpdatedAt: now,
      });
    const admin = await app.signedIn("admin-writer@example.com");
    await db().update(user).set({ role: "admin" }).where(eq(user.email, "admin-writer@example.com"));

    for (const cookie of [subscriber, admin]) {
      const created = await app.call("POST", "/api/chat/conversations", { cookie, body: { model: "prompt-helper" } });
      expect(created.status).toBe(201);
      const { id } = ((await created.json()) as { conversation: { id: string } }).conversation;
      const answer = await readStream(
        await app.call("POST", `/api/chat/conversations/${id}/messages`, { cookie, body: { text: "a lighthouse" } }),
      );
      expect(textOf(answer)).toContain("lighthouse");
      expect((await credits(cookie)).held).toBe(0);
    }

    // No plan reserves it any more: the free account is answered again.
    await reserve([]);
    const created = await app.call("POST", "/api/chat/conversations", {
      cookie: free,
      body: { model: "prompt-helper" },
    });
    expect(created.status).toBe(201);
  });
});
