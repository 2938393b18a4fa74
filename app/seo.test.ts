import { describe, expect, it } from "vitest";
import { buildSeo } from "#app/seo.ts";
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
});
