import { describe, expect, it } from "vitest";
import { buildSeo, seoMeta } from "#app/seo.ts";
import { publicSiteConfig, siteDefaults } from "#config/site.ts";

const site = { ...publicSiteConfig(siteDefaults), url: "https://atelier.example" };

describe("canonical and alternates", () => {
  it("gives /pricing and /en/pricing the same unprefixed canonical", () => {
    for (const pathname of ["/pricing", "/en/pricing"]) {
      expect(buildSeo({ site, pathname, locale: "en", title: "x" }).canonical).toBe("https://atelier.example/pricing");
    }
  });

  it("keeps the prefix for other locales and lists every variant plus x-default", () => {
    const seo = buildSeo({ site, pathname: "/zh/pricing", locale: "zh", title: "x" });
    expect(seo.canonical).toBe("https://atelier.example/zh/pricing");
    expect(seo.alternates).toHaveLength(11);
    expect(seo.alternates).toContainEqual({ hreflang: "zh-CN", href: "https://atelier.example/zh/pricing" });
    expect(seo.alternates).toContainEqual({ hreflang: "en", href: "https://atelier.example/pricing" });
    expect(seo.alternates).toContainEqual({ hreflang: "x-default", href: "https://atelier.example/pricing" });
  });

  it("keeps private areas out of search engines", () => {
    expect(buildSeo({ site, pathname: "/de/dashboard/home", locale: "de", title: "x" }).noindex).toBe(true);
    expect(buildSeo({ site, pathname: "/auth/login", locale: "en", title: "x" }).noindex).toBe(true);
    expect(buildSeo({ site, pathname: "/ja/", locale: "ja", title: "x" })).toMatchObject({
      noindex: false,
      canonical: "https://atelier.example/ja/",
    });
  });

  it("points a page in English for want of a translation to the English page, among its written languages only", () => {
    const seo = buildSeo({
      site,
      pathname: "/ko/blog/x",
      locale: "ko",
      title: "x",
      translations: ["en", "de"],
      search: "?page=2",
    });
    expect(seo.canonical).toBe("https://atelier.example/blog/x?page=2");
    expect(seo.alternates.map((a) => a.hreflang)).toEqual(["en", "de", "x-default"]);
  });

  it("writes the structured data and the size of a drawn preview picture into the head", () => {
    const seo = buildSeo({
      site,
      pathname: "/blog/x",
      locale: "en",
      title: "x",
      type: "article",
      image: "/og/en/blog/x.png",
      jsonLd: [{ "@type": "BlogPosting", headline: "x" }],
    });
    const tags = seoMeta(seo);
    expect(tags).toContainEqual({ property: "og:type", content: "article" });
    expect(tags).toContainEqual({ property: "og:image:width", content: "1200" });
    expect(tags).toContainEqual({ "script:ld+json": { "@type": "BlogPosting", headline: "x" } });
    const shared = seoMeta(
      buildSeo({ site, pathname: "/share/1", locale: "en", title: "x", image: "/media/1/thumb.webp" }),
    );
    expect(shared.some((tag) => "property" in tag && tag.property === "og:image:width")).toBe(false);
  });
});
