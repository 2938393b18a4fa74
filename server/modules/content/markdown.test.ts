import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CONTENT_DIR } from "#server/paths.ts";
import { isLocale } from "#common/locales.ts";
import { readingMinutes, renderMarkdown, splitFrontMatter } from "./markdown.ts";

describe("the content's files", () => {
  const files = readdirSync(CONTENT_DIR).flatMap((folder) =>
    readdirSync(join(CONTENT_DIR, folder)).flatMap((locale) =>
      readdirSync(join(CONTENT_DIR, folder, locale)).map((name) => ({ folder, locale, name })),
    ),
  );

  it.each(files.map((f) => [`${f.folder}/${f.locale}/${f.name}`, f] as const))(
    "%s has a valid front matter with a title and a summary",
    (path, file) => {
      expect(isLocale(file.locale)).toBe(true);
      expect(file.name).toMatch(/^[a-z0-9][a-z0-9-]*\.md$/);
      const { meta, body } = splitFrontMatter(readFileSync(join(CONTENT_DIR, path), "utf8"), path);
      expect(typeof meta.title).toBe("string");
      expect((meta.description as string).length).toBeGreaterThan(10);
      expect(meta.updated).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(body).toMatch(/^\s*# \S/);
    },
  );
});

describe("splitFrontMatter", () => {
  it("reads YAML: quoted values, lists, dates kept as text", () => {
    const { meta, body } = splitFrontMatter(
      '---\ntitle: "Strength: explained"\ntags: [api, guides]\ndate: 2026-11-24\nnested: { a: 1 }\n---\n# Hi\n',
    );
    expect(meta).toEqual({ title: "Strength: explained", tags: ["api", "guides"], date: "2026-11-24" });
    expect(body).toBe("# Hi\n");
  });

  it("names the file whose front matter is broken", () => {
    expect(() => splitFrontMatter("---\ntitle: {{site}} rules\n---\n", "blog/en/x.md")).toThrow(/blog\/en\/x\.md/);
  });
});

describe("readingMinutes", () => {
  it("counts words, characters in Chinese and Japanese, and code for a third", () => {
    const words = (n: number) => Array.from({ length: n }, () => "word").join(" ");
    expect(readingMinutes(words(10), "en")).toBe(1);
    expect(readingMinutes(words(1100), "en")).toBe(5);
    expect(readingMinutes("字".repeat(2000), "zh")).toBe(5);
    expect(readingMinutes("字".repeat(2000), "ja")).toBe(4);
    expect(readingMinutes(`${words(440)}\n\n\`\`\`\n${words(660)}\n\`\`\`\n`, "de")).toBe(3);
  });
});

describe("renderMarkdown", () => {
  it("never lets markup or script through", () => {
    const { html } = renderMarkdown(
      [
        "<script>alert(1)</script>",
        '<img src=x onerror="alert(1)">',
        "[click](javascript:alert(1)) [data](data:text/html;base64,PHNjcmlwdD4=)",
        "```html\n</code></pre><script>alert(2)</script>\n```",
      ].join("\n\n"),
      "en",
    );
    expect(html).not.toMatch(/<script|<img|href="javascript:|href="data:/i);
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
  });

  it("keeps the reader's language in links inside the site, and opens others without a referrer", () => {
    const { html } = renderMarkdown("[ref](/docs/api-reference) [other](https://example.com/x)", "de");
    expect(html).toContain('href="/de/docs/api-reference"');
    expect(html).toContain('href="https://example.com/x" rel="noopener noreferrer"');
    expect(renderMarkdown("[ref](/docs/api-reference)", "en").html).toContain('href="/docs/api-reference"');
  });

  it("gives headings ids from their text in any script, unique within the page", () => {
    const { toc } = renderMarkdown("## Créer une clé\n\n## İmza doğrulama\n\n## 创建密钥\n\n## Créer une clé", "fr");
    expect(toc.map((h) => h.id)).toEqual(["creer-une-cle", "imza-dogrulama", "创建密钥", "creer-une-cle-2"]);
  });
});
