import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import MarkdownIt from "markdown-it";
import { parse as parseYaml } from "yaml";
import { CONTENT_DIR } from "#server/paths.ts";
import { DEFAULT_LOCALE, LOCALES, type Locale } from "#common/locales.ts";

/** A front matter value as the pages use them: text, or a list of texts (tags). */
export type FrontMatter = Record<string, string | string[]>;

export interface MarkdownPage<S extends string> {
  slug: S;
  title: string;
  description: string;
  /** Rendered from Markdown with raw HTML disabled, so nothing in a file can inject markup or scripts. */
  html: string;
  /** The second-level headings, for the table of contents. */
  toc: { id: string; text: string }[];
  /** The language the text is actually in: English when the page has no translation yet. */
  locale: Locale;
  fallback: boolean;
  /** When the text last changed (`updated` in its front matter, YYYY-MM-DD). */
  updated?: string;
  /** Every field of the front matter, with the placeholders filled in. */
  meta: FrontMatter;
  /** About how long the text takes to read, in whole minutes (at least one). */
  readingMinutes: number;
}

/**
 * The YAML front matter of a page (between `---` lines) and the Markdown after it. Values are kept as text (a date
 * stays `2026-11-24`); lists become lists of texts; anything else in the front matter is left out.
 */
export function splitFrontMatter(source: string, file = "page"): { meta: FrontMatter; body: string } {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n/.exec(source);
  if (!match) return { meta: {}, body: source };
  let parsed: unknown;
  try {
    parsed = parseYaml(match[1]!);
  } catch (error) {
    throw new Error(`${file}: the front matter is not valid YAML: ${(error as Error).message.split("\n")[0]}`, {
      cause: error,
    });
  }
  const meta: FrontMatter = {};
  if (parsed && typeof parsed === "object") {
    for (const [key, value] of Object.entries(parsed)) {
      if (Array.isArray(value)) meta[key] = value.map(String);
      else if (value !== null && typeof value !== "object") meta[key] = String(value);
    }
  }
  return { meta, body: source.slice(match[0].length) };
}

/** Heading ids from their text, keeping letters of every script (Cyrillic, CJK, …). */
function slugify(text: string): string {
  return (
    text
      .toLowerCase()
      // Accents and other marks go (the Turkish İ lower-cases to i and a combining dot)
      .normalize("NFKD")
      .replace(/\p{M}+/gu, "")
      .replace(/[^\p{L}\p{N}]+/gu, "-")
      .replace(/^-+|-+$/g, "") || "section"
  );
}

/**
 * The site's Markdown renderer: raw HTML disabled (nothing in a text can inject markup or scripts), links inside
 * the site keep the reader's language, links elsewhere open without handing over the page, and code blocks drawn
 * as the site's code blocks.
 */
export function createMarkdown(locale: Locale) {
  const md = new MarkdownIt({ html: false, linkify: false, typographer: false });
  const defaultLink = md.renderer.rules.link_open ?? ((tokens, i, o, _env, self) => self.renderToken(tokens, i, o));
  md.renderer.rules.link_open = (tokens, i, options, env, self) => {
    const token = tokens[i]!;
    const href = String(token.attrGet("href") ?? "");
    if (href.startsWith("/") && !href.startsWith("//")) {
      if (locale !== DEFAULT_LOCALE) token.attrSet("href", `/${locale}${href}`);
    } else {
      token.attrSet("rel", "noopener noreferrer");
    }
    return defaultLink(tokens, i, options, env, self);
  };
  md.renderer.rules.fence = (tokens, i) => {
    const token = tokens[i]!;
    const language = token.info.trim().split(/\s+/)[0] ?? "";
    const label = language ? ` data-language="${md.utils.escapeHtml(language)}"` : "";
    return `<pre class="code-block"${label}><code>${md.utils.escapeHtml(token.content)}</code></pre>\n`;
  };
  return md;
}

/** Markdown to HTML with an id on every heading, and the second-level ones as the table of contents. */
export function renderMarkdown(body: string, locale: Locale): { html: string; toc: MarkdownPage<string>["toc"] } {
  const md = createMarkdown(locale);
  const toc: MarkdownPage<string>["toc"] = [];
  const used = new Set<string>();
  md.core.ruler.push("heading_ids", (state) => {
    const tokens = state.tokens;
    for (let i = 0; i < tokens.length; i++) {
      const token = tokens[i]!;
      if (token.type !== "heading_open") continue;
      const text = tokens[i + 1]?.content ?? "";
      let id = slugify(text);
      for (let n = 2; used.has(id); n++) id = `${slugify(text)}-${n}`;
      used.add(id);
      token.attrSet("id", id);
      if (token.tag === "h2") toc.push({ id, text });
    }
  });
  const html = md.render(body);
  return { html, toc };
}

// Languages read in characters rather than words, and how many a reader takes in per minute.
const CHARACTERS_PER_MINUTE: Partial<Record<Locale, number>> = { zh: 400, ja: 450 };
const WORDS_PER_MINUTE = 220;
// Code is skimmed, not read: it counts for a third of its words
const CODE_WEIGHT = 1 / 3;

/** About how many minutes a Markdown text takes to read in its language, at least one. */
export function readingMinutes(body: string, locale: Locale): number {
  const code = (body.match(/```[\s\S]*?```/g) ?? []).join("\n");
  const prose = body.replace(/```[\s\S]*?```/g, "");
  const words = (text: string) => text.match(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu)?.length ?? 0;
  const perMinute = CHARACTERS_PER_MINUTE[locale];
  const amount = perMinute
    ? (prose.match(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/gu)?.length ?? 0) / perMinute +
      words(prose.replace(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/gu, " ")) / WORDS_PER_MINUTE
    : words(prose) / WORDS_PER_MINUTE;
  return Math.max(1, Math.round(amount + (words(code) * CODE_WEIGHT) / WORDS_PER_MINUTE));
}

/** Every collection made, so that a change of the content forgets all their rendered pages. */
const collections: { forget(): void }[] = [];

/** Forgets every rendered page and listing, so the next read takes the files as they are now. */
export function forgetRenderedContent() {
  for (const collection of collections) collection.forget();
}

/** A front matter value that is text, or undefined (absent, or a list). */
export const frontMatterText = (value: string | string[] | undefined): string | undefined =>
  typeof value === "string" ? value : undefined;

/**
 * A folder of Markdown pages per locale (`content/{folder}/{locale}/{slug}.md`) with `title`, `description` and
 * `updated` in their front matter and `{{name}}` placeholders filled from `values`: each page is rendered with the
 * site's Markdown (raw HTML disabled) once per language and values, in English (marked as such) when it has no
 * translation. The pages are the given `slugs`, or else every English file of the folder.
 */
export function markdownCollection<S extends string = string>(folder: string, slugs?: readonly S[]) {
  const dir = join(CONTENT_DIR, folder);
  const cache = new Map<string, MarkdownPage<S> | null>();
  let listed: readonly S[] | undefined;
  const list = (): readonly S[] =>
    (listed ??=
      slugs ??
      (readdirSafe(join(dir, DEFAULT_LOCALE))
        .filter((name) => /^[a-z0-9][a-z0-9-]*\.md$/.test(name))
        .map((name) => name.slice(0, -3) as S)
        .sort() as readonly S[]));
  const isSlug = (slug: string): slug is S => (list() as readonly string[]).includes(slug);
  const read = (locale: Locale, slug: S): string | null => {
    try {
      return readFileSync(join(dir, locale, `${slug}.md`), "utf8");
    } catch {
      return null;
    }
  };
  const collection = {
    slugs: list,
    isSlug,
    get(options: { slug: string; locale: Locale; values: Record<string, string> }): MarkdownPage<S> | null {
      if (!isSlug(options.slug)) return null;
      const key = `${options.locale}|${options.slug}|${JSON.stringify(options.values)}`;
      const cached = cache.get(key);
      if (cached !== undefined) return cached;
      const own = read(options.locale, options.slug);
      const source = own ?? read(DEFAULT_LOCALE, options.slug);
      if (source === null) {
        cache.set(key, null);
        return null;
      }
      const fill = (value: string) =>
        value.replace(/\{\{(\w+)\}\}/g, (whole, name: string) => options.values[name] ?? whole);
      const split = splitFrontMatter(
        source,
        `${folder}/${own === null ? DEFAULT_LOCALE : options.locale}/${options.slug}.md`,
      );
      const meta: FrontMatter = Object.fromEntries(
        Object.entries(split.meta).map(([k, v]) => [k, Array.isArray(v) ? v.map(fill) : fill(v)]),
      );
      const locale = own === null ? DEFAULT_LOCALE : options.locale;
      // The page shows the title itself: the Markdown's own first heading is left out
      const body = fill(split.body).replace(/^\s*# .*\n+/, "");
      const { html, toc } = renderMarkdown(body, options.locale);
      const page: MarkdownPage<S> = {
        slug: options.slug,
        title: frontMatterText(meta.title) ?? options.slug,
        description: frontMatterText(meta.description) ?? "",
        html,
        toc,
        locale,
        fallback: own === null,
        updated: frontMatterText(meta.updated),
        meta,
        readingMinutes: readingMinutes(body, locale),
      };
      cache.set(key, page);
      return page;
    },
    /** The languages a page is written in (an untranslated one is shown in English), each with its `updated` date. */
    translations(slug: S): { locale: Locale; updated?: string }[] {
      return LOCALES.flatMap((locale) => {
        const source = read(locale, slug);
        if (source === null) return [];
        return [
          { locale, updated: frontMatterText(splitFrontMatter(source, `${folder}/${locale}/${slug}.md`).meta.updated) },
        ];
      });
    },
    forget: () => {
      cache.clear();
      if (!slugs) listed = undefined;
    },
  };
  collections.push(collection);
  return collection;
}

function readdirSafe(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
