import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { creditOrder, user } from "#server/db/schema/index.ts";
import { searchUsers, userSearchSchema } from "#server/modules/users/search-users.ts";
import { auditSearchSchema, listAdminActions } from "#server/modules/audit/list-admin-actions.ts";
import { recordAdminAction, type AdminActor } from "#server/modules/audit/record-admin-action.ts";
import { grantCredits } from "#server/modules/credits/ledger.ts";
import { modelStats } from "#server/modules/generation/model-stats.ts";
import { generation } from "#server/db/schema/index.ts";
import { backends, insertUser, migratedDatabase } from "#tests/support/backends.ts";

describe.each(backends)("the console's lists on $name", (backend) => {
  const db = migratedDatabase(backend);

  it("searches accounts by e-mail or name, filters by role, suspension, confirmation and payment, and sorts", async () => {
    // A word of its own, so that the other tests' accounts do not match.
    const tag = `zq${Date.now().toString(36)}`;
    const named = async (name: string, set: Partial<typeof user.$inferInsert> = {}) => {
      const id = await insertUser(db(), `${name} ${tag}`);
      if (Object.keys(set).length > 0) await db().update(user).set(set).where(eq(user.id, id));
      return id;
    };
    const ada = await named("Ada");
    const ben = await named("Ben", { role: "admin" });
    const cy = await named("Cy", { banned: true, emailVerified: false });
    await grantCredits({
      db: db(),
      userId: ada,
      amount: 500,
      kind: "purchase",
      reference: "order:x",
      idempotencyKey: `g-${ada}`,
    });
    await grantCredits({ db: db(), userId: cy, amount: 5, kind: "signup_bonus", idempotencyKey: `g-${cy}` });
    await db()
      .insert(creditOrder)
      .values({
        userId: ada,
        packId: "starter",
        credits: 100,
        amount: 500,
        currency: "usd",
        status: "paid",
        requestKey: `k-${ada}`,
        paidAt: new Date(),
      });
    const find = (query: Record<string, string>, page = 1, pageSize = 10) =>
      searchUsers({ db: db(), search: userSearchSchema.parse({ q: tag, ...query }), page, pageSize });
    const ids = async (query: Record<string, string>) => (await find(query)).rows.map((r) => r.id);

    expect((await find({})).total).toBe(3);
    expect(await ids({ role: "admin" })).toEqual([ben]);
    expect(await ids({ banned: "yes" })).toEqual([cy]);
    expect((await ids({ banned: "no" })).sort()).toEqual([ada, ben].sort());
    expect(await ids({ verified: "no" })).toEqual([cy]);
    expect(await ids({ paid: "yes" })).toEqual([ada]);
    expect((await find({ paid: "yes" })).total).toBe(1);
    expect((await find({ paid: "no" })).total).toBe(2);
    expect((await ids({ paid: "no" })).sort()).toEqual([ben, cy].sort());
    expect(await ids({ sort: "balance" })).toEqual([ada, cy, ben]);
    // By e-mail (an id is the address's start), in any case, and by name.
    expect(await ids({ q: ada.slice(0, 8).toUpperCase() })).toEqual([ada]);
    expect(await ids({ q: `ben ${tag}` })).toEqual([ben]);
    // The search box's `%` and `_` are themselves, not patterns.
    expect(await ids({ q: "%" })).toEqual([]);
    // An unknown value is no filter (never an error page).
    expect((await find({ role: "owner", sort: "sideways", paid: "maybe" })).total).toBe(3);
    const first = await find({ sort: "email" }, 1, 2);
    const second = await find({ sort: "email" }, 2, 2);
    expect(first.total).toBe(3);
    expect([...first.rows, ...second.rows].map((r) => r.email)).toEqual(
      [ada, ben, cy].map((id) => `${id}@example.com`).sort(),
    );
    const row = (await find({ paid: "yes" })).rows[0]!;
    expect(row).toMatchObject({ balance: 500, paid: true, role: "user", banned: false, emailVerified: true });
  });

  it("lists the audit log newest first, filtered by area, actor, target and days", async () => {
    const actor = (label: string): AdminActor => ({ id: null, label });
    const target = await insertUser(db(), "Target");
    await recordAdminAction(db(), actor("alpha@example.com"), {
      action: "role.grant",
      targetType: "user",
      targetId: target,
      targetLabel: `${target}@example.com`,
    });
    await recordAdminAction(db(), actor("beta@example.com"), {
      action: "credits.adjust",
      targetType: "user",
      targetId: target,
      targetLabel: `${target}@example.com`,
      reason: "goodwill",
    });
    await recordAdminAction(db(), actor("cli"), { action: "codes.create", targetType: "codes", targetLabel: "spring" });
    const list = (query: Record<string, string>) =>
      listAdminActions({ db: db(), search: auditSearchSchema.parse(query), page: 1, pageSize: 10 });
    const actions = async (query: Record<string, string>) => (await list(query)).rows.map((r) => r.action);

    expect(await actions({ target })).toEqual(["credits.adjust", "role.grant"]);
    expect(await actions({ target, area: "role" })).toEqual(["role.grant"]);
    expect(await actions({ actor: "ALPHA" })).toEqual(["role.grant"]);
    expect(await actions({ target: "spring" })).toEqual(["codes.create"]);
    const today = new Date().toISOString().slice(0, 10);
    expect((await list({ target, from: today, to: today })).total).toBe(2);
    expect((await list({ target, to: "2000-01-01" })).total).toBe(0);
    // A date that is not one, or an area it does not know: no filter.
    expect((await list({ target, from: "2026-13-45", area: "everything" })).total).toBe(2);
  });

  it("sums each model's jobs over a period: outcomes, run times, credits and units delivered", async () => {
    const userId = await insertUser(db(), "Figures");
    const model = `figures-${Date.now().toString(36)}`;
    const at = (hoursAgo: number) => new Date(Date.now() - hoursAgo * 3_600_000);
    const job = (o: { status: string; hoursAgo: number; ms?: number; charged?: number; count?: number }) => ({
      userId,
      kind: "image" as const,
      tool: "text-to-image" as const,
      modelId: model,
      prompt: "figures",
      params: { count: o.count ?? 1, aspectRatio: "1:1" } as never,
      status: o.status as "succeeded",
      creditsHeld: 10,
      creditsCharged: o.charged ?? null,
      durationMs: o.ms ?? null,
      timeoutSeconds: 60,
      createdAt: at(o.hoursAgo),
    });
    await db()
      .insert(generation)
      .values([
        job({ status: "succeeded", hoursAgo: 1, ms: 1000, charged: 2, count: 2 }),
        job({ status: "succeeded", hoursAgo: 2, ms: 2000, charged: 4, count: 4 }),
        job({ status: "succeeded", hoursAgo: 3, ms: 9000, charged: 1, count: 1 }),
        job({ status: "failed", hoursAgo: 4 }),
        job({ status: "queued", hoursAgo: 5 }),
        // Outside a day, inside a week.
        job({ status: "succeeded", hoursAgo: 48, ms: 5000, charged: 10, count: 4 }),
      ]);
    const of = async (hours: number) =>
      (await modelStats({ db: db(), since: at(hours) })).find((s) => s.modelId === model);
    expect(await of(24)).toEqual({
      modelId: model,
      jobs: 5,
      succeeded: 3,
      failed: 1,
      p50Seconds: 2,
      // Interpolated between the two slowest: 2 + 0.9 × (9 − 2).
      p95Seconds: 8.3,
      credits: 7,
      images: 7,
      videos: 0,
      videoSeconds: 0,
    });
    expect(await of(24 * 7)).toMatchObject({ jobs: 6, succeeded: 4, credits: 17, images: 11 });
  });
});
