import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_DATABASE_URL } from "#tests/support/server.ts";
import { openApp } from "#tests/support/in-process.ts";
import { insertUser } from "#tests/support/backends.ts";
import { generation, likeTally } from "#server/db/schema/index.ts";
import { listExplore } from "#server/modules/explore/list-explore.ts";
import { listFeatured } from "#server/modules/explore/list-featured.ts";
import { setLike } from "#server/modules/explore/set-like.ts";
import { hideGeneration } from "#server/modules/generation/moderate-generation.ts";
import { CLI_ACTOR } from "#server/modules/audit/record-admin-action.ts";
import { readExploreQuery, type ExploreQuery } from "#common/explore.ts";
import type { Locale } from "#common/locales.ts";
import { AppError } from "#server/errors.ts";

const backend = TEST_DATABASE_URL ? "PostgreSQL" : "PGlite";

/*
 * Explore's listing over real generations: only what is shown publicly, filtered, searched in the visitor's language
 * and word for word (CJK by characters), in its three orders; and likes that count exactly under concurrency.
 */
describe(`explore on ${backend}`, () => {
  let app: Awaited<ReturnType<typeof openApp>>;
  let cookie: string;
  const ids: Record<string, string> = {};
  const db = () => app.runtime.database.db;
  const list = (
    query: Partial<ExploreQuery> = {},
    locale: Locale = "en",
    viewerId: string | null = null,
    fewMatches?: number,
  ) =>
    listExplore({
      db: db(),
      query: { ...readExploreQuery(new URLSearchParams()), ...query },
      locale,
      viewerId,
      fewMatches,
    });
  const listed = async (query: Partial<ExploreQuery> = {}, locale: Locale = "en") =>
    (await list(query, locale)).items.map((i) => i.id);

  async function generate(name: string, prompt: string, options: { locale?: Locale; share?: boolean } = {}) {
    const res = await app.call("POST", "/api/generations", {
      cookie,
      body: { tool: "text-to-image", model: "demo-image", prompt },
      headers: options.locale ? { "X-Locale": options.locale } : {},
    });
    expect(res.status).toBe(201);
    const { generation: made } = (await res.json()) as { generation: { id: string } };
    expect(await app.ended(made.id, cookie)).toBe("succeeded");
    if (options.share !== false) {
      const shared = await app.call("PATCH", `/api/generations/${made.id}`, { cookie, body: { visibility: "public" } });
      expect(shared.status).toBe(200);
    }
    ids[name] = made.id;
    return made.id;
  }

  beforeAll(async () => {
    app = await openApp();
    cookie = await app.signedIn("explorer@example.com");
    await generate("cat", "A red cat sleeping on the moon, oil painting");
    await generate("katze", "Rote Katzen schlafen auf dem Mond, Ölgemälde", { locale: "de" });
    await generate("mao", "一只猫在月球上睡觉，油画");
    await generate("private", "A private red cat", { share: false });
    await generate("city", "Cyberpunk city at night, neon reflections");
  }, 120_000);
  afterAll(async () => {
    await app?.close();
  });

  it("records the language of each prompt", async () => {
    const rows = await db().select({ id: generation.id, lang: generation.promptLang }).from(generation);
    const lang = (name: string) => rows.find((r) => r.id === ids[name])?.lang;
    expect([lang("cat"), lang("katze"), lang("mao"), lang("city")]).toEqual(["en", "de", "zh", "en"]);
  });

  it("lists public results only, newest first or trending, with their first picture and no owner without a handle", async () => {
    expect(await listed({ sort: "newest" })).toEqual([ids.city, ids.mao, ids.katze, ids.cat]);
    const { items, hasMore } = await list({ sort: "newest" });
    expect(hasMore).toBe(false);
    expect(items[0]).toMatchObject({ kind: "image", tool: "text-to-image", modelId: "demo-image", creator: null });
    expect(items[0]!.still).toMatch(/^\/media\//);
    expect(items[2]).toMatchObject({ promptLang: "de", likes: 0, liked: false });
    expect(await listed({ kind: "video" })).toEqual([]);
    expect(await listed({ tool: "image-to-image" })).toEqual([]);
    expect((await listed({ model: "demo-image" })).length).toBe(4);
  });

  it("searches prompts stemmed in the visitor's language, word for word in any, and CJK text by its characters", async () => {
    expect(await listed({ q: "cats" }, "en")).toEqual([ids.cat]);
    expect(await listed({ q: "Katze" }, "de")).toEqual([ids.katze]);
    // Word for word, a German prompt is found from any language.
    expect(await listed({ q: "Katzen" }, "fr")).toEqual([ids.katze]);
    expect(await listed({ q: "猫" }, "zh")).toEqual([ids.mao]);
    expect(await listed({ q: "月球" }, "ja")).toEqual([ids.mao]);
    expect(await listed({ q: "moon -cat" }, "en")).toEqual([]);
    expect((await listed({ q: "moon" }, "en")).sort()).toEqual([ids.cat].sort());
    expect(await listed({ q: '"neon reflections"' }, "en")).toEqual([ids.city]);
    expect(await listed({ q: "'); drop table generation; --" }, "en")).toEqual([]);
    // The private one is never found.
    expect(await listed({ q: "private" })).toEqual([]);
  });

  it("orders and pages a search's matches as the listing does, whether they are few or many", async () => {
    const q = "cat or city or Katzen or 猫";
    for (const sort of ["newest", "trending", "remixed"] as const) {
      const all = await listed({ sort });
      for (const fewMatches of [1000, 1]) {
        const found = await list({ q, sort }, "en", null, fewMatches);
        expect(found.items.map((i) => i.id)).toEqual(all);
        expect(await list({ q, sort, page: 2 }, "en", null, fewMatches)).toEqual({ items: [], hasMore: false });
      }
    }
  });

  it("counts 200 likes by 200 accounts at once exactly, once each, undoable", async () => {
    const users = await Promise.all(Array.from({ length: 200 }, (_, i) => insertUser(db(), `Fan ${i}`)));
    const results = await Promise.all(
      users.map((userId) => setLike({ db: db(), generationId: ids.cat!, userId, liked: true })),
    );
    expect(results.every((r) => r.liked)).toBe(true);
    const count = async () =>
      (await db().select({ n: likeTally.likes }).from(likeTally).where(eq(likeTally.generationId, ids.cat!)))[0]?.n ??
      0;
    expect(await count()).toBe(200);
    // The same like again, and 50 of them at once, count once.
    await Promise.all(
      users.slice(0, 50).map((userId) => setLike({ db: db(), generationId: ids.cat!, userId, liked: true })),
    );
    expect(await count()).toBe(200);
    const [rows] = await Promise.all([
      db().execute(sql`select count(*)::int as n from generation_like where generation_id = ${ids.cat}`),
    ]);
    expect((rows as unknown as { rows: { n: number }[] }).rows[0]!.n).toBe(200);
    // Unliked twice at once: once.
    const [a, b] = await Promise.all([
      setLike({ db: db(), generationId: ids.cat!, userId: users[0]!, liked: false }),
      setLike({ db: db(), generationId: ids.cat!, userId: users[0]!, liked: false }),
    ]);
    expect([a.liked, b.liked]).toEqual([false, false]);
    expect(await count()).toBe(199);
    // The viewer sees their own like.
    const mine = (await list({ sort: "newest" }, "en", users[1]!)).items.find((i) => i.id === ids.cat);
    expect(mine).toMatchObject({ liked: true, likes: 199 });
    // The trending rank follows the count on a doubling scale, also with 72 unlikes at once (199 → 127).
    const rank = async () =>
      (await db().select({ r: generation.likeRank }).from(generation).where(eq(generation.id, ids.cat!)))[0]!.r;
    expect(await rank()).toBe(7);
    await Promise.all(
      users.slice(1, 73).map((userId) => setLike({ db: db(), generationId: ids.cat!, userId, liked: false })),
    );
    expect(await count()).toBe(127);
    expect(await rank()).toBe(6);
  });

  it("puts a liked result first in trending and keeps private ones unlikeable", async () => {
    expect((await listed())[0]).toBe(ids.cat);
    const fan = await insertUser(db());
    const refused = await setLike({ db: db(), generationId: ids.private!, userId: fan, liked: true }).catch(
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).code).toBe("not_found");
  });

  it("shows no hidden or flagged result anywhere it lists, featured included", async () => {
    await db().update(generation).set({ featuredAt: new Date() }).where(eq(generation.id, ids.city!));
    expect((await listFeatured({ db: db(), viewerId: null, limit: 6 })).map((i) => i.id)).toEqual([ids.city]);
    await hideGeneration({ db: db(), id: ids.city!, reason: "test", actor: CLI_ACTOR });
    await db().update(generation).set({ review: "flagged" }).where(eq(generation.id, ids.mao!));
    expect(await listed({ sort: "newest" })).toEqual([ids.katze, ids.cat]);
    expect(await listed({ q: "猫" }, "zh")).toEqual([]);
    expect(await listFeatured({ db: db(), viewerId: null, limit: 6 })).toEqual([]);
    const fan = await insertUser(db());
    await expect(setLike({ db: db(), generationId: ids.city!, userId: fan, liked: true })).rejects.toThrow();
  });
});
