import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LOCALES } from "#common/locales.ts";
import { ROOT } from "#server/paths.ts";
import { connectionsCommand, modelsCommand } from "#server/admin/catalog-commands.ts";
import { providers } from "#server/providers/registry.ts";
import { PRICE_UNITS, PRICED_SETTINGS } from "#common/model-parameters.ts";
import { DIGITAL_SOURCE_TYPES } from "#server/media/xmp.ts";
import { DOC_SLUGS, getDoc, listDocs } from "./get-doc.ts";

const values = {
  origin: "https://atelier.example",
  site: "Atelier Test",
  limit: "77",
  accountLimit: "240",
  waitSeconds: "45",
};
const source = (locale: string, slug: string) => readFileSync(join(ROOT, "content/docs", locale, `${slug}.md`), "utf8");
const fences = (md: string) => md.match(/```[\s\S]*?```/g) ?? [];
const headings = (md: string) => (md.match(/^#{1,6} /gm) ?? []).map((h) => h.trim());

describe("documentation pages", () => {
  describe.each(DOC_SLUGS)("%s", (slug) => {
    const english = source("en", slug);

    it.each(LOCALES.filter((l) => l !== "en"))("is translated into %s, with the same code and structure", (locale) => {
      const translated = source(locale, slug);
      expect(fences(translated)).toEqual(fences(english));
      expect(headings(translated)).toEqual(headings(english));
      for (const name of ["origin", "site", "limit", "accountLimit", "waitSeconds"]) {
        expect(translated.split(`{{${name}}}`).length, name).toBe(english.split(`{{${name}}}`).length);
      }
      const doc = getDoc({ slug, locale, values })!;
      expect(doc).toMatchObject({ locale, fallback: false });
      // Titles may be a loanword ("Webhooks"); the summary is always the language's own
      expect(doc.description).not.toBe(getDoc({ slug, locale: "en", values })!.description);
      expect(doc.description.length).toBeGreaterThan(10);
    });

    it("fills in this server's address, name and limit, and lists its sections", () => {
      const doc = getDoc({ slug, locale: "en", values })!;
      expect(doc.html).not.toContain("{{");
      if (english.includes("{{origin}}")) expect(doc.html).toContain("https://atelier.example/");
      if (english.includes("{{site}}")) expect(doc.html).toContain("Atelier Test");
      expect(doc.toc.length).toBeGreaterThanOrEqual(3);
      for (const { id } of doc.toc) expect(doc.html).toContain(`id="${id}"`);
      // The page shows the title itself: no second one in the body
      expect(doc.html).not.toContain("<h1");
    });
  });

  it("tells operators every models and connections command, option and provider, in every language", () => {
    const words = (usage: string, command: string) => [
      ...new Set([
        ...[...usage.matchAll(new RegExp(`${command} ([a-z|]+)`, "g"))].flatMap((m) => m[1]!.split("|")),
        ...(usage.match(/--[a-z-]+/g) ?? []),
      ]),
    ];
    const wanted = [
      ...words(modelsCommand.usage, "models").map((w) => (w.startsWith("--") ? w : `models ${w}`)),
      ...words(connectionsCommand.usage, "connections").map((w) => (w.startsWith("--") ? w : `connections ${w}`)),
      ...providers.map((p) => `\`${p.id}\``),
      "ENCRYPTION_KEY",
      "ENCRYPTION_KEY_PREVIOUS",
    ];
    expect(wanted).toContain("models import");
    expect(wanted).toContain("connections test");
    for (const locale of LOCALES) {
      const page = source(locale, "models");
      for (const word of wanted) expect(page, `${locale}: ${word}`).toContain(word);
      expect(source(locale, "configuration"), locale).toContain("`ENCRYPTION_KEY_PREVIOUS`");
    }
  });

  it("tells operators how to connect their own ComfyUI servers and sell their workflows, in every language", () => {
    const wanted = [
      "connections add comfyui",
      "--url",
      "--header",
      "models add comfyui:",
      "models workflow",
      "COMFYUI_URLS",
      "/object_info",
      "--listen",
      "perAccount",
      "maxJobs",
      "price.credits=",
    ];
    for (const locale of LOCALES) {
      const page = source(locale, "comfyui");
      for (const word of wanted) expect(page, `${locale}: ${word}`).toContain(word);
      // Reached from the operators' other pages
      expect(source(locale, "models"), locale).toContain("(/docs/comfyui)");
      expect(source(locale, "configuration"), locale).toContain("`COMFYUI_URLS`");
    }
  });

  it("tells everyone what the mark in every output holds, where it sits and how to read it, in every language", () => {
    const wanted = [
      ...Object.values(DIGITAL_SOURCE_TYPES),
      "`Iptc4xmpExt:DigitalSourceType`",
      "`Iptc4xmpExt:AISystemUsed`",
      "`xmp:CreatorTool`",
      "`xmp:CreateDate`",
      "`dc:identifier`",
      "`XML:com.adobe.xmp`",
      "APP1",
      "`XMP `",
      "`uuid`",
      "WebM",
      "exiftool -XMP:all",
      "`libimage-exiftool-perl`",
      "Digital Source Type",
      "`SITE_NAME`",
      "npm run bench -- provenance",
      "GB 45438-2025",
      "2026",
    ];
    for (const locale of LOCALES) {
      const page = source(locale, "provenance");
      for (const word of wanted) expect(page, `${locale}: ${word}`).toContain(word);
    }
  });

  it("tells operators how a model is added by its id, mapped and priced, and developers its settings and quote, in every language", () => {
    const settings = PRICED_SETTINGS.map((s) => `\`${s}\``);
    const operators = [
      "expand=openapi-3.0",
      "/v1/models/pricing?endpoint_id=",
      "/v1/models/{owner}/{name}",
      "`GET /models`",
      "price.multipliers.",
      "price.minimum=",
      "`sync_mode`",
      ...settings,
    ];
    const developers = [
      "`POST /api/v1/images/quote`",
      "`POST /api/v1/videos/quote`",
      "`options`",
      "`resolution`",
      "`resolutions`",
      "`audio`",
      "`parameters`",
      "`multipliers`",
      "`minimum`",
      "`invalid_options`",
      ...PRICE_UNITS.map((u) => `\`${u}\``),
      ...settings,
    ];
    for (const locale of LOCALES) {
      for (const word of operators) expect(source(locale, "models"), `${locale}: ${word}`).toContain(word);
      for (const word of developers) expect(source(locale, "api"), `${locale}: ${word}`).toContain(word);
    }
  });

  it("has no page for an unknown slug, and lists every page in each language", () => {
    expect(getDoc({ slug: "nope", locale: "en", values })).toBeNull();
    expect(getDoc({ slug: "../../package", locale: "en", values })).toBeNull();
    expect(listDocs({ locale: "ko", values }).map((d) => d.slug)).toEqual([...DOC_SLUGS]);
  });
});
