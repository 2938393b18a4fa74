import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CONTENT_DIR } from "#server/paths.ts";
import { LOCALES } from "#common/locales.ts";
import { POSTS_PER_PAGE, getPost, listPosts, postTranslations, publishedPosts } from "./blog.ts";
import { splitFrontMatter } from "./markdown.ts";

const values = { origin: "https://atelier.example", site: "Atelier Test" };
const SLUGS = readdirSync(join(CONTENT_DIR, "blog/en")).map((name) => name.replace(/\.md$/, ""));
const source = (locale: string, slug: string) => readFileSync(join(CONTENT_DIR, "blog", locale, `${slug}.md`), "utf8");
const fences = (md: string) => md.match(/```[\s\S]*?```/g) ?? [];
const headings = (md: string) => (md.match(/^#{2,6} /gm) ?? []).map((h) => h.trim());

describe("the blog's articles", () => {
  it("has at least three, each in all ten languages", () => {
    expect(SLUGS.length).toBeGreaterThanOrEqual(3);
    for (const slug of SLUGS) expect(postTranslations(slug).map((t) => t.locale)).toEqual([...LOCALES]);
  });

  describe.each(SLUGS)("%s", (slug) => {
    const english = splitFrontMatter(source("en", slug));

    it.each(LOCALES.filter((l) => l !== "en"))(
      "is translated into %s, with the same code, sections and facts",
      (locale) => {
        const translated = splitFrontMatter(source(locale, slug));
        expect(fences(translated.body)).toEqual(fences(english.body));
        expect(headings(translated.body)).toEqual(headings(english.body));
        for (const key of ["date", "updated", "tags", "cover"])
          expect(translated.meta[key], key).toEqual(english.meta[key]);
        for (const key of ["title", "description"]) expect(translated.meta[key], key).not.toBe(english.meta[key]);
        const post = getPost({ slug, locale, values })!;
        expect(post).toMatchObject({ locale, fallback: false });
        expect(post.html).not.toContain("{{");
      },
    );

    it("is dated, written by someone, filed under known topics and illustrated", () => {
      const post = getPost({ slug, locale: "en", values })!;
      expect(post.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(post.author).toBe("The Atelier Test team");
      expect(post.tags.length).toBeGreaterThan(0);
      expect(post.cover).toMatch(/^\/blog\/covers\/[a-z0-9-]+\.svg$/);
      expect(readFileSync(join(CONTENT_DIR, "../public", post.cover!), "utf8")).toContain("<svg");
      expect(post.toc.length).toBeGreaterThanOrEqual(4);
      expect(post.readingMinutes).toBeGreaterThanOrEqual(2);
      // The page shows the title itself
      expect(post.html).not.toContain("<h1");
    });
  });
});

describe("listPosts", () => {
  it("lists the articles newest first, a page at a time, with their topics counted", () => {
    const list = listPosts({ locale: "de", values, page: 1 })!;
    const dates = list.posts.map((p) => p.date);
    expect([...dates].sort().reverse()).toEqual(dates);
    expect(list.posts.length).toBe(Math.min(POSTS_PER_PAGE, SLUGS.length));
    expect(list.pages).toBe(Math.ceil(SLUGS.length / POSTS_PER_PAGE));
    expect(list.tags.find((t) => t.tag === "guides")!.count).toBe(
      list.posts.filter((p) => p.tags.includes("guides")).length,
    );
    // Most used topics first
    const counts = list.tags.map((t) => t.count);
    expect([...counts].sort((a, b) => b - a)).toEqual(counts);
  });

  it("filters by topic, and has no page for a topic no article has or past the end", () => {
    const api = listPosts({ locale: "en", values, page: 1, tag: "api" })!;
    expect(api.posts.length).toBeGreaterThan(0);
    expect(api.posts.every((p) => p.tags.includes("api"))).toBe(true);
    expect(listPosts({ locale: "en", values, page: 1, tag: "nope" })).toBeNull();
    expect(listPosts({ locale: "en", values, page: 99 })).toBeNull();
    expect(listPosts({ locale: "en", values, page: 0 })).toBeNull();
    expect(listPosts({ locale: "en", values, page: 1.5 })).toBeNull();
  });

  it("publishes an article from its date on", () => {
    const all = publishedPosts({ locale: "en", values });
    const newest = all[0]!;
    const before = new Date(Date.parse(`${newest.date}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
    const earlier = publishedPosts({ locale: "en", values, today: before });
    expect(earlier.map((p) => p.slug)).not.toContain(newest.slug);
    expect(getPost({ slug: newest.slug, locale: "en", values, today: before })).toBeNull();
    expect(getPost({ slug: newest.slug, locale: "en", values, today: newest.date })).not.toBeNull();
  });
});

describe("getPost", () => {
  it("links the next older and newer articles, and related ones sharing a topic", () => {
    const all = publishedPosts({ locale: "fr", values });
    const middle = getPost({ slug: all[1]!.slug, locale: "fr", values })!;
    expect(middle.next).toEqual({ slug: all[0]!.slug, title: all[0]!.title });
    expect(middle.previous).toEqual({ slug: all[2]!.slug, title: all[2]!.title });
    expect(getPost({ slug: all[0]!.slug, locale: "fr", values })!.next).toBeNull();
    expect(middle.related.length).toBeGreaterThan(0);
    for (const post of middle.related) {
      expect(post.slug).not.toBe(middle.slug);
      expect(post.tags.some((tag) => middle.tags.includes(tag))).toBe(true);
    }
  });

  it("has nothing for an unknown slug or a path", () => {
    expect(getPost({ slug: "nope", locale: "en", values })).toBeNull();
    expect(getPost({ slug: "../docs/en/api", locale: "en", values })).toBeNull();
  });
});
