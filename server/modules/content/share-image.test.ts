import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { renderShareImage, shareImageSvg, wrapTitle } from "./share-image.ts";
import { shareCardOf, shareImagePath } from "./share-card.ts";
import type { SiteConfig } from "#config/site.ts";

const site = {
  url: "https://atelier.example",
  name: "Atelier",
  supportEmail: "help@atelier.example",
  signupBonusCredits: 20,
} as SiteConfig;
const values = {
  origin: "https://atelier.example",
  site: "Atelier",
  limit: "60",
  accountLimit: "240",
  waitSeconds: "90",
};

describe("share pictures", () => {
  it("wraps a title at spaces, or between Chinese and Japanese characters, within the lines allowed", () => {
    const title = "From prompt to pipeline with the REST API and webhooks";
    const lines = wrapTitle(title, 18, 3);
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.join(" ")).toBe(title);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(32);
    const chinese = wrapTitle("图生图：强度详解以及更多的内容和说明文字", 8, 3);
    expect(chinese.length).toBeGreaterThan(1);
    for (const line of chinese) expect([...line].length).toBeLessThanOrEqual(9);
    const long = wrapTitle("word ".repeat(60).trim(), 10, 2);
    expect(long).toHaveLength(2);
    expect(long[1]!.endsWith("…")).toBe(true);
  });

  it("escapes the title and keeps a colour that is not one to the brand colour", () => {
    const svg = shareImageSvg({
      title: '<script>"x"</script>',
      label: "Blog",
      site: "A&B",
      color: "red;x",
      locale: "en",
    });
    expect(svg).not.toContain("<script>");
    expect(svg).toContain("&lt;script&gt;");
    expect(svg).toContain("A&amp;B");
    expect(svg).toContain('stop-color="#4f46e5"');
  });

  it("draws a 1200×630 PNG, with the reader's CJK font first", async () => {
    const png = await renderShareImage({
      title: "图生图：强度详解",
      label: "博客",
      site: "Atelier",
      color: "#4f46e5",
      locale: "zh",
    });
    expect(await sharp(png).metadata()).toMatchObject({ format: "png", width: 1200, height: 630 });
    expect(shareImageSvg({ title: "x", label: "y", site: "z", color: "#000000", locale: "ja" })).toContain(
      'font-family="Noto Sans CJK JP,',
    );
  });

  it("has a picture only for the site's public pages, titled in the page's language", () => {
    expect(shareImagePath("en", "/")).toBe("/og/en/index.png");
    expect(shareImagePath("de", "/blog/x")).toBe("/og/de/blog/x.png");
    expect(shareCardOf("/", "de", site, values)!.title).toBe(shareCardOf("/index", "de", site, values)!.title);
    expect(shareCardOf("/blog/image-to-image-strength-explained", "zh", site, values)).toEqual({
      title: "图生图：强度详解",
      label: expect.any(String),
    });
    expect(shareCardOf("/docs/webhooks", "en", site, values)!.title).toBe("Webhooks");
    expect(shareCardOf("/legal/terms", "fr", site, values)!.title).toMatch(/\S/);
    for (const path of ["/test", "/pricing", "/docs", "/docs/api-reference", "/blog"]) {
      expect(shareCardOf(path, "ko", site, values), path).not.toBeNull();
    }
    for (const path of ["/dashboard", "/blog/nope", "/legal/nope", "/docs/api/extra", "/auth/login", "/share/1"]) {
      expect(shareCardOf(path, "en", site, values), path).toBeNull();
    }
  });
});
