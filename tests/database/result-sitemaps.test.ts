import { eq } from "drizzle-orm";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_DATABASE_URL } from "#tests/support/server.ts";
import { openApp } from "#tests/support/in-process.ts";
import { expectSchemaValid } from "#tests/support/sitemaps.ts";
import { generation, user } from "#server/db/schema/index.ts";
import { updateSettings } from "#server/modules/settings/update-settings.ts";
import { hideGeneration } from "#server/modules/generation/moderate-generation.ts";
import { CLI_ACTOR } from "#server/modules/audit/record-admin-action.ts";
import { LOCALES } from "#common/locales.ts";

const backend = TEST_DATABASE_URL ? "PostgreSQL" : "PGlite";
const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@",
  isArray: (name) => ["url", "sitemap", "xhtml:link"].includes(name),
});
type Url = { loc: string; lastmod: string; "xhtml:link": { "@hreflang": string; "@href": string }[] };

/*
 * The results' sitemaps: every result shown publicly, in every language with its alternates, split into files of
 * SITEMAP_RESULTS_PER_FILE (two here) that the index names; nothing private, hidden or flagged; valid against the
 * sitemaps.org schema and read by a real XML parser.
 */
describe(`the results' sitemaps on ${backend}`, () => {
  let app: Awaited<ReturnType<typeof openApp>>;
  let cookie: string;
  const ids: string[] = [];

  async function xml(path: string, schema: "sitemap.xsd" | "siteindex.xsd") {
    const res = await app.call("GET", path);
    expect(res.status, path).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/xml; charset=utf-8");
    const text = await res.text();
    expect(XMLValidator.validate(text), path).toBe(true);
    await expectSchemaValid(text, schema);
    return parser.parse(text) as {
      sitemapindex: { sitemap: { loc: string }[] };
      urlset: { url: Url[] };
    };
  }

  beforeAll(async () => {
    app = await openApp({ SITEMAP_RESULTS_PER_FILE: "2" });
    cookie = await app.signedIn("mapped@example.com");
    for (const prompt of ["a heron", "a crane", "a stork", "an egret", "a private ibis"]) {
      const res = await app.call("POST", "/api/generations", {
        cookie,
        body: { tool: "text-to-image", model: "demo-image", prompt },
      });
      const { generation: made } = (await res.json()) as { generation: { id: string } };
      expect(await app.ended(made.id, cookie)).toBe("succeeded");
      if (!prompt.includes("private"))
        await app.call("PATCH", `/api/generations/${made.id}`, { cookie, body: { visibility: "public" } });
      ids.push(made.id);
    }
    // A creator with a handle and public works; another with a handle and nothing public.
    await app.runtime.database.db.update(user).set({ handle: "mapper" }).where(eq(user.email, "mapped@example.com"));
    await app.signedIn("quiet@example.com");
    await app.runtime.database.db.update(user).set({ handle: "quiet" }).where(eq(user.email, "quiet@example.com"));
    // One hidden by an administrator, one flagged by a check: neither is listed.
    await hideGeneration({ db: app.runtime.database.db, id: ids[2]!, reason: "test", actor: CLI_ACTOR });
    await app.runtime.database.db.update(generation).set({ review: "flagged" }).where(eq(generation.id, ids[3]!));
  }, 120_000);
  afterAll(async () => {
    await app?.close();
  });

  it("lists public results only, split into files the index names, each page with its eleven alternates", async () => {
    const index = (await xml("/sitemap.xml", "siteindex.xsd")).sitemapindex.sitemap.map((s) => s.loc);
    // Two results shown publicly, two a file: one file per language.
    const files = LOCALES.map((l) => `${app.origin}/${l}/sitemap-results-1.xml`);
    expect(index.filter((loc) => loc.includes("sitemap-results"))).toEqual(files);
    const de = (await xml("/de/sitemap-results-1.xml", "sitemap.xsd")).urlset.url;
    expect(de.map((u) => u.loc)).toEqual([`${app.origin}/de/share/${ids[0]}`, `${app.origin}/de/share/${ids[1]}`]);
    expect(de[0]!.lastmod).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const links = de[0]!["xhtml:link"];
    expect(links).toHaveLength(11);
    expect(links.find((l) => l["@hreflang"] === "x-default")?.["@href"]).toBe(`${app.origin}/share/${ids[0]}`);
    expect(links.find((l) => l["@hreflang"] === "zh-CN")?.["@href"]).toBe(`${app.origin}/zh/share/${ids[0]}`);
    expect((await app.call("GET", "/de/sitemap-results-2.xml")).status).toBe(404);
  });

  it("splits past a file's size: a third public result opens a second file", async () => {
    await app.call("PATCH", `/api/generations/${ids[4]}`, { cookie, body: { visibility: "public" } });
    const second = (await xml("/en/sitemap-results-2.xml", "sitemap.xsd")).urlset.url;
    expect(second.map((u) => u.loc)).toEqual([`${app.origin}/share/${ids[4]}`]);
  });

  it("lists creators with public works while explore is open, and none once it is closed", async () => {
    const creators = LOCALES.map((l) => `${app.origin}/${l}/sitemap-creators-1.xml`);
    const index = async () => (await xml("/sitemap.xml", "siteindex.xsd")).sitemapindex.sitemap.map((s) => s.loc);
    expect((await index()).filter((loc) => loc.includes("sitemap-creators"))).toEqual(creators);
    const ja = (await xml("/ja/sitemap-creators-1.xml", "sitemap.xsd")).urlset.url;
    expect(ja.map((u) => u.loc)).toEqual([`${app.origin}/ja/u/mapper`]);
    expect(ja[0]!["xhtml:link"].find((l) => l["@hreflang"] === "x-default")?.["@href"]).toBe(`${app.origin}/u/mapper`);
    await updateSettings({
      db: app.runtime.database.db,
      defaults: app.runtime.settings.defaults,
      section: "explore",
      value: { enabled: false },
      actor: CLI_ACTOR,
    });
    await app.runtime.settings.refresh();
    expect((await app.call("GET", "/ja/sitemap-creators-1.xml")).status).toBe(404);
    expect((await index()).some((loc) => loc.includes("sitemap-creators"))).toBe(false);
    // The results' pages stay listed: they are not part of explore.
    expect((await index()).some((loc) => loc.includes("sitemap-results"))).toBe(true);
  });
});
