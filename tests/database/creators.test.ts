import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_DATABASE_URL } from "#tests/support/server.ts";
import { openApp } from "#tests/support/in-process.ts";
import { insertUser } from "#tests/support/backends.ts";
import { adminAction, generation, user } from "#server/db/schema/index.ts";
import { setPublicProfile } from "#server/modules/users/set-public-profile.ts";
import { getCreator } from "#server/modules/explore/get-creator.ts";
import { setFollow } from "#server/modules/explore/set-follow.ts";
import { setLike } from "#server/modules/explore/set-like.ts";
import { setFeatured } from "#server/modules/explore/set-featured.ts";
import { listCreatorWorks } from "#server/modules/explore/list-creator-works.ts";
import { listExplore } from "#server/modules/explore/list-explore.ts";
import { listShowcase } from "#server/modules/generation/list-showcase.ts";
import { CLI_ACTOR } from "#server/modules/audit/record-admin-action.ts";
import { readExploreQuery } from "#common/explore.ts";

const backend = TEST_DATABASE_URL ? "PostgreSQL" : "PGlite";

/*
 * Creators: a handle chosen in the profile (checked, reserved words refused, unique under a race), the creator page's
 * figures, following, the "following" feed, results that start public when their author asked, and featuring.
 */
describe(`creators on ${backend}`, () => {
  let app: Awaited<ReturnType<typeof openApp>>;
  let cookie: string;
  let makerId: string;
  const db = () => app.runtime.database.db;

  async function generate(prompt: string) {
    const res = await app.call("POST", "/api/generations", {
      cookie,
      body: { tool: "text-to-image", model: "demo-image", prompt },
    });
    const { generation: made } = (await res.json()) as { generation: { id: string } };
    expect(await app.ended(made.id, cookie)).toBe("succeeded");
    return made.id;
  }

  beforeAll(async () => {
    app = await openApp();
    cookie = await app.signedIn("creator@example.com");
    [{ id: makerId }] = (await db()
      .select({ id: user.id })
      .from(user)
      .where(eq(user.email, "creator@example.com"))) as [{ id: string }];
  }, 60_000);
  afterAll(async () => {
    await app?.close();
  });

  it("takes a handle in any case with or without @, refuses malformed and reserved ones, and one account each", async () => {
    const profile = (handle: string, bio = "") =>
      setPublicProfile({ db: db(), userId: makerId, handle, bio, publishByDefault: false });
    expect(await profile("ab")).toEqual({ ok: false, problem: "handleInvalid" });
    expect(await profile("1ada")).toEqual({ ok: false, problem: "handleInvalid" });
    expect(await profile("ada lovelace")).toEqual({ ok: false, problem: "handleInvalid" });
    expect(await profile("Admin")).toEqual({ ok: false, problem: "handleReserved" });
    expect(await profile("explore")).toEqual({ ok: false, problem: "handleReserved" });
    expect(await profile("ada", "x".repeat(301))).toEqual({ ok: false, problem: "bioTooLong" });
    expect(await profile(" @Ada_L ", "Paints lighthouses.")).toEqual({ ok: true, handle: "ada_l" });
    // Two accounts asking for one handle at once: one gets it.
    const [a, b] = await Promise.all([insertUser(db()), insertUser(db())]);
    const outcomes = await Promise.all(
      [a, b].map((userId) => setPublicProfile({ db: db(), userId, handle: "grace", bio: "", publishByDefault: false })),
    );
    expect(outcomes.filter((o) => o.ok)).toHaveLength(1);
    expect(outcomes.find((o) => !o.ok)).toEqual({ ok: false, problem: "handleTaken" });
    expect(await setPublicProfile({ db: db(), userId: a, handle: "ADA_L", bio: "", publishByDefault: false })).toEqual({
      ok: false,
      problem: "handleTaken",
    });
  });

  it("shows a creator's works and figures, and counts followers once each", async () => {
    const first = await generate("a lighthouse at dawn");
    await app.call("PATCH", `/api/generations/${first}`, { cookie, body: { visibility: "public" } });
    await generate("a private sketch");
    const fan = await insertUser(db());
    await setLike({ db: db(), generationId: first, userId: fan, liked: true });
    let creator = await getCreator({ db: db(), handle: "@ADA_L", viewerId: fan });
    expect(creator).toMatchObject({ handle: "ada_l", bio: "Paints lighthouses.", works: 1, likes: 1, followers: 0 });
    expect(creator?.followed).toBe(false);
    await Promise.all(
      [1, 2, 3].map(() => setFollow({ db: db(), creatorId: makerId, followerId: fan, followed: true })),
    );
    creator = await getCreator({ db: db(), handle: "ada_l", viewerId: fan });
    expect(creator).toMatchObject({ followers: 1, followed: true, own: false });
    await expect(setFollow({ db: db(), creatorId: makerId, followerId: makerId, followed: true })).rejects.toThrow();
    const works = await listCreatorWorks({ db: db(), creatorId: makerId, viewerId: fan, page: 1 });
    expect(works.items.map((i) => i.id)).toEqual([first]);
    expect(works.items[0]).toMatchObject({ liked: true, creator: { handle: "ada_l" } });
    // The follower's feed holds the creator's public works; a stranger's is empty.
    const feed = (viewerId: string | null) =>
      listExplore({
        db: db(),
        query: readExploreQuery(new URLSearchParams("feed=following")),
        locale: "en",
        viewerId,
      });
    expect((await feed(fan)).items.map((i) => i.id)).toEqual([first]);
    expect((await feed(await insertUser(db()))).items).toEqual([]);
    expect((await feed(null)).items).toEqual([]);
    await setFollow({ db: db(), creatorId: makerId, followerId: fan, followed: false });
    expect((await getCreator({ db: db(), handle: "ada_l", viewerId: fan }))?.followers).toBe(0);
    expect(await getCreator({ db: db(), handle: "nobody_here", viewerId: null })).toBeNull();
  });

  it("starts new results public when their author asked to", async () => {
    await setPublicProfile({ db: db(), userId: makerId, handle: "ada_l", bio: "", publishByDefault: true });
    const id = await generate("published from the start");
    const [row] = await db()
      .select({ visibility: generation.visibility })
      .from(generation)
      .where(eq(generation.id, id));
    expect(row?.visibility).toBe("public");
    await setPublicProfile({ db: db(), userId: makerId, handle: "ada_l", bio: "", publishByDefault: false });
  });

  it("features a public result first on the home page, audited, and refuses a private one", async () => {
    const [shown] = (await listCreatorWorks({ db: db(), creatorId: makerId, viewerId: null, page: 1 })).items.slice(-1);
    expect(await setFeatured({ db: db(), id: shown!.id, featured: true, actor: CLI_ACTOR })).toEqual({ changed: true });
    expect(await setFeatured({ db: db(), id: shown!.id, featured: true, actor: CLI_ACTOR })).toEqual({
      changed: false,
    });
    expect((await listShowcase({ db: db(), limit: 8 }))[0]?.id).toBe(shown!.id);
    const logged = await db().select({ action: adminAction.action }).from(adminAction);
    expect(logged.filter((l) => l.action === "generations.feature")).toHaveLength(1);
    const hidden = await generate("not public");
    await expect(setFeatured({ db: db(), id: hidden, featured: true, actor: CLI_ACTOR })).rejects.toThrow();
    expect(await setFeatured({ db: db(), id: shown!.id, featured: false, actor: CLI_ACTOR })).toEqual({
      changed: true,
    });
  });
});
