import { and, eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminAction, asset, contentReport, generation, promptRefusal, user } from "#server/db/schema/index.ts";
import type { AdminActor } from "#server/modules/audit/record-admin-action.ts";
import { reportGeneration, REPORT_LIMITS } from "#server/modules/safety/report-generation.ts";
import { reviewGeneration } from "#server/modules/safety/review-generation.ts";
import { countReviewQueue, listReviewQueue } from "#server/modules/safety/list-review-queue.ts";
import { listPromptRefusals } from "#server/modules/safety/list-prompt-refusals.ts";
import { setVisibility } from "#server/modules/generation/set-visibility.ts";
import type { ReviewDecision } from "#server/modules/safety/schema.ts";
import { TEST_DATABASE_URL } from "#tests/support/server.ts";
import { openApp } from "#tests/support/in-process.ts";
import { nextMail } from "#tests/support/outbox.ts";

const backend = TEST_DATABASE_URL ? "PostgreSQL" : "PGlite";

describe(`reports and the review queue on ${backend}`, () => {
  let app: Awaited<ReturnType<typeof openApp>>;
  let cookie: string;
  let ownerId: string;
  const owner = "owner-review@example.com";
  const admin: AdminActor = { id: "admin-review", label: "chief@example.com", ip: "203.0.113.7" };
  const db = () => app.runtime.database.db;
  const dataDir = () => app.runtime.env.DATA_DIR;

  beforeAll(async () => {
    app = await openApp();
    cookie = await app.signedIn(owner);
    const [row] = await db().select({ id: user.id }).from(user).where(eq(user.email, owner));
    ownerId = row!.id;
    // The owner reads the site in German: what they are told comes in German.
    await db().update(user).set({ locale: "de" }).where(eq(user.id, ownerId));
  });
  afterAll(async () => {
    await app?.close();
  });

  async function generate(prompt: string, visibility: "public" | "private" = "public"): Promise<string> {
    const res = await app.call("POST", "/api/generations", {
      cookie,
      body: { tool: "text-to-image", model: "demo-image", prompt, count: 1 },
    });
    const { generation: made } = (await res.json()) as { generation: { id: string } };
    expect(await app.ended(made.id, cookie)).toBe("succeeded");
    if (visibility === "public") await setVisibility({ db: db(), userId: ownerId, id: made.id, visibility: "public" });
    return made.id;
  }
  const report = (generationId: string, reporterHash: string, reason: "spam" | "hate" = "spam", note?: string) =>
    reportGeneration({ db: db(), generationId, report: { reason, note }, reporterHash, reporterId: null });
  const review = (id: string, decision: ReviewDecision, reason = "looked at it") =>
    reviewGeneration({
      db: db(),
      storage: app.runtime.storage,
      boss: app.runtime.boss,
      siteUrl: app.origin,
      id,
      decision,
      reason,
      actor: admin,
    });
  const openReports = (generationId: string) =>
    db()
      .select()
      .from(contentReport)
      .where(eq(contentReport.generationId, generationId))
      .then((rows) => rows.filter((r) => !r.resolvedAt));
  const audit = (targetId: string) =>
    db()
      .select({ action: adminAction.action, reason: adminAction.reason, actor: adminAction.actor })
      .from(adminAction)
      .where(eq(adminAction.targetId, targetId));

  it("takes a signed-out visitor's report once, by a hash of their address, and slows a flood down", async () => {
    const id = await generate("a heron for reporting");
    const visitor = app.runtime.hashAddress("198.51.100.20");
    expect(visitor).not.toContain("198.51.100.20");
    expect(app.runtime.hashAddress("198.51.100.20")).toBe(visitor);
    expect(await report(id, visitor, "hate", "  a slur in the corner  ")).toEqual({ ok: true, counted: true });
    // The same visitor again: accepted, kept once.
    expect(await report(id, visitor, "spam")).toEqual({ ok: true, counted: false });
    const rows = await openReports(id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ reason: "hate", reporterId: null, reporterHash: visitor });
    // Another visitor counts on their own.
    expect(await report(id, app.runtime.hashAddress("198.51.100.21"))).toEqual({ ok: true, counted: true });
    expect(await openReports(id)).toHaveLength(2);

    // One address sending a hundred in a loop: at most the limit passes, the rest are told when to come back.
    const flooder = app.runtime.hashAddress("192.0.2.99");
    const outcomes = [];
    for (let i = 0; i < 100; i++) outcomes.push(await report(id, flooder));
    const passed = outcomes.filter((o) => o.ok);
    expect(passed.length).toBeLessThanOrEqual(REPORT_LIMITS.perMinute.max);
    expect(outcomes.slice(REPORT_LIMITS.perMinute.max).every((o) => !o.ok && o.retryAfter >= 1)).toBe(true);
    expect(await openReports(id)).toHaveLength(3);
  });

  it("answers not found for a result nobody else may see: private, flagged, hidden, unknown", async () => {
    const visitor = app.runtime.hashAddress("198.51.100.30");
    const privateOne = await generate("a private heron", "private");
    const flagged = await generate("a flagged heron");
    await db().update(generation).set({ review: "flagged", visibility: "private" }).where(eq(generation.id, flagged));
    const hidden = await generate("a hidden heron");
    await review(hidden, "hide");
    for (const id of [privateOne, flagged, hidden, "00000000-0000-4000-8000-000000000000", "not-a-uuid"])
      await expect(report(id, visitor)).rejects.toMatchObject({ code: "not_found" });
    expect(
      await db()
        .select()
        .from(contentReport)
        .where(inArray(contentReport.generationId, [privateOne, flagged, hidden])),
    ).toEqual([]);
  });

  it("lists flagged and reported results with their checks and reports, and clears one: public again when wanted", async () => {
    const reported = await generate("a reported heron");
    await report(reported, app.runtime.hashAddress("198.51.100.40"), "spam", "it sells pills");
    const flagged = await generate("a flagged heron to clear", "private");
    await db()
      .update(generation)
      .set({
        review: "flagged",
        safety: {
          level: "standard",
          prompt: [{ source: "moderation", flagged: false, categories: [] }],
          output: [{ source: "classifier", flagged: true, categories: ["sexual"], scores: { sexual: 0.91 } }],
          wantedPublic: true,
        },
      })
      .where(eq(generation.id, flagged));
    await db()
      .insert(promptRefusal)
      .values({
        userId: ownerId,
        source: "web",
        modelId: "demo-image",
        prompt: "a refused heron",
        level: "standard",
        findings: [{ source: "block_list", flagged: true, categories: ["refused"] }],
      });

    const queue = await listReviewQueue({ db: db(), page: 1, pageSize: 50 });
    const byId = new Map(queue.rows.map((r) => [r.id, r]));
    expect(byId.get(reported)).toMatchObject({
      email: owner,
      modelId: "demo-image",
      review: null,
      reports: [{ reason: "spam", note: "it sells pills", signedIn: false }],
    });
    expect(byId.get(reported)!.thumbAssetId).toMatch(/^[0-9a-f-]{36}$/);
    expect(byId.get(flagged)).toMatchObject({ review: "flagged", reports: [], safety: { wantedPublic: true } });
    expect(await countReviewQueue({ db: db() })).toBe(queue.total);
    // A flagged result cannot be published by its owner until it is cleared.
    await expect(setVisibility({ db: db(), userId: ownerId, id: flagged, visibility: "public" })).rejects.toMatchObject(
      { code: "under_review" },
    );

    const refusals = await listPromptRefusals({ db: db(), page: 1, pageSize: 10 });
    expect(refusals.rows[0]).toMatchObject({ email: owner, prompt: "a refused heron", source: "web" });

    expect(await review(flagged, "clear", "a false alarm")).toEqual({ decision: "clear", reports: 0, published: true });
    const [cleared] = await db().select().from(generation).where(eq(generation.id, flagged));
    expect(cleared).toMatchObject({ review: "cleared", visibility: "public", hiddenAt: null });
    expect(cleared!.reviewedAt).toBeInstanceOf(Date);
    // Sent twice: a conflict, nothing done twice.
    await expect(review(flagged, "clear")).rejects.toMatchObject({ code: "conflict" });
    expect(await audit(flagged)).toEqual([
      { action: "generations.clear", reason: "a false alarm", actor: "chief@example.com" },
    ]);
    // The owner is told, in their language, with a link to the result.
    const mail = await nextMail(dataDir(), owner, (m) => m.subject.includes("freigegeben"));
    expect(mail.link).toContain(`/de/dashboard/image/`);
    expect(mail.link).toContain(flagged);

    expect(await review(reported, "clear")).toMatchObject({ reports: 1, published: false });
    expect(await openReports(reported)).toEqual([]);
    const [settled] = await db().select().from(contentReport).where(eq(contentReport.generationId, reported));
    expect(settled).toMatchObject({ resolution: "cleared" });
    const after = await listReviewQueue({ db: db(), page: 1, pageSize: 50 });
    expect(after.rows.map((r) => r.id)).not.toContain(reported);
    expect(after.rows.map((r) => r.id)).not.toContain(flagged);
  });

  it("hides a reported result for good, settling its reports", async () => {
    const id = await generate("a heron to hide");
    await report(id, app.runtime.hashAddress("198.51.100.50"));
    expect(await review(id, "hide", "not for the showcase")).toMatchObject({ decision: "hide", reports: 1 });
    const [row] = await db().select().from(generation).where(eq(generation.id, id));
    expect(row).toMatchObject({ visibility: "private" });
    expect(row!.hiddenAt).toBeInstanceOf(Date);
    expect(await openReports(id)).toEqual([]);
    await expect(review(id, "hide")).rejects.toMatchObject({ code: "conflict" });
    await expect(setVisibility({ db: db(), userId: ownerId, id, visibility: "public" })).rejects.toMatchObject({
      code: "moderated",
    });
    expect(await audit(id)).toEqual([
      { action: "generations.hide", reason: "not for the showcase", actor: admin.label },
    ]);
    await nextMail(dataDir(), owner, (m) => m.subject.includes("ausgeblendet"));
  });

  it("deletes a result with its stored files", async () => {
    const id = await generate("a heron to delete");
    await report(id, app.runtime.hashAddress("198.51.100.60"), "hate");
    const files = await db()
      .select({ key: asset.storageKey, thumb: asset.thumbKey })
      .from(asset)
      .where(eq(asset.generationId, id));
    const keys = files.flatMap((f) => [f.key, f.thumb]).filter((k): k is string => Boolean(k));
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) expect(await app.runtime.storage.stat(key)).not.toBeNull();

    expect(await review(id, "delete", "against the rules")).toMatchObject({ decision: "delete", reports: 1 });
    expect(await db().select().from(generation).where(eq(generation.id, id))).toEqual([]);
    expect(await db().select().from(asset).where(eq(asset.generationId, id))).toEqual([]);
    for (const key of keys) expect(await app.runtime.storage.stat(key)).toBeNull();
    // The log keeps what it was.
    const [entry] = await db().select().from(adminAction).where(eq(adminAction.targetId, id));
    expect(entry).toMatchObject({ action: "generations.delete", reason: "against the rules", targetLabel: owner });
    expect(entry!.before).toMatchObject({ prompt: "a heron to delete", model: "demo-image", reports: 1 });
    // Sent twice: it is gone.
    await expect(review(id, "delete")).rejects.toMatchObject({ code: "not_found" });
    const mail = await nextMail(dataDir(), owner, (m) => m.subject.includes("entfernt"));
    expect(mail.link).toBe(`${app.origin}/de/dashboard/image`);
  });

  it("suspends the owner and hides the result, in one decision", async () => {
    const banned = "banned-review@example.com";
    const bannedCookie = await app.signedIn(banned);
    const res = await app.call("POST", "/api/generations", {
      cookie: bannedCookie,
      body: { tool: "text-to-image", model: "demo-image", prompt: "a heron of a spammer", count: 1 },
    });
    const { generation: made } = (await res.json()) as { generation: { id: string } };
    expect(await app.ended(made.id, bannedCookie)).toBe("succeeded");
    const [account] = await db().select({ id: user.id }).from(user).where(eq(user.email, banned));
    await setVisibility({ db: db(), userId: account!.id, id: made.id, visibility: "public" });
    await report(made.id, app.runtime.hashAddress("198.51.100.70"), "spam");

    expect(await review(made.id, "ban", "spam account")).toMatchObject({ decision: "ban", reports: 1 });
    const [owned] = await db()
      .select({ banned: user.banned, banReason: user.banReason })
      .from(user)
      .where(eq(user.id, account!.id));
    expect(owned).toEqual({ banned: true, banReason: "spam account" });
    const [row] = await db().select().from(generation).where(eq(generation.id, made.id));
    expect(row!.hiddenAt).toBeInstanceOf(Date);
    expect(row!.visibility).toBe("private");
    // Its session is over.
    expect((await app.call("GET", "/api/generations", { cookie: bannedCookie })).status).toBe(401);
    await expect(review(made.id, "ban")).rejects.toMatchObject({ code: "conflict" });
    const entries = await db()
      .select({ action: adminAction.action })
      .from(adminAction)
      .where(and(inArray(adminAction.targetId, [made.id, account!.id])));
    expect(entries.map((e) => e.action).sort()).toEqual(["generations.hide", "user.ban"]);
    // No locale of their own: English.
    await nextMail(dataDir(), banned, (m) => m.subject.includes("suspended"));
  });
});
