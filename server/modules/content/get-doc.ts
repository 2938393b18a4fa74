import { readFileSync } from "node:fs";
import { join } from "node:path";
import MarkdownIt from "markdown-it";
import { CONTENT_DIR } from "#server/paths.ts";
import { DEFAULT_LOCALE, LOCALES, type Locale } from "#common/locales.ts";

/** The documentation pages written in Markdown, in the order the docs index lists them. */
export const DOC_SLUGS = ["api", "webhooks"] as const;
export type DocSlug = (typeof DOC_SLUGS)[number];

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
}

export type Doc = MarkdownPage<DocSlug>;

/** Values the pages refer to as `{{name}}`: this server's address, name and limits. */
export type DocValues = Record<"origin" | "site" | "limit", string>;

/** `title` and `description` from the page's front matter, and the Markdown after it. */
export function splitFrontMatter(source: string): { meta: Record<string, string>; body: string } {
  const match = /^---\n([\s\S]*?)\n---\n/.exec(source);
  if (!match) return { meta: {}, body: source };
  const meta: Record<string, string> = {};
  for (const line of match[1]!.split("\n")) {
    const at = line.indexOf(":");
    if (at > 0) meta[line.slice(0, at).trim()] = line.slice(at + 1).trim();
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
 * The Markdown renderer of the documentation: raw HTML disabled (nothing in a text can inject markup or scripts),
 * links inside the site keep the reader's language, links elsewhere open without handing over the page, and code
 * blocks drawn as the site's code blocks.
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

export function renderDocMarkdown(body: string, locale: Locale): { html: string; toc: Doc["toc"] } {
  const md = createMarkdown(locale);
  const toc: Doc["toc"] = [];
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

/** Every collection made, so that a change of the content forgets all their rendered pages. */
const collections: { forget(): void }[] = [];
const docs = markdownCollection<DocSlug>("docs", DOC_SLUGS);

/** Forgets every rendered page, so the next read takes the files as they are now. */
export function forgetRenderedDocs() {
  for (const collection of collections) collection.forget();
}

/**
 * A documentation page in the reader's language, or in English (marked as such) when it has not been translated;
 * null for a page that does not exist. Rendered once per process and language.
 */
export function getDoc(options: { slug: string; locale: Locale; values: DocValues }): Doc | null {
  return docs.get(options);
}

/** The languages a page is written in (an untranslated one is shown in English), each with its `updated` date. */
export function docTranslations(slug: DocSlug): { locale: Locale; updated?: string }[] {
  return docs.translations(slug);
}

/**
 * A folder of Markdown pages per locale (`content/{folder}/{locale}/{slug}.md`) with `title`, `description` and
 * `updated` in their front matter and `{{name}}` placeholders filled from `values`: each page is rendered with the
 * documentation's Markdown (raw HTML disabled) once per language and values, in English (marked as such) when it
 * has no translation.
 */
export function markdownCollection<S extends string>(folder: string, slugs: readonly S[]) {
  const dir = join(CONTENT_DIR, folder);
  const cache = new Map<string, MarkdownPage<S> | null>();
  const isSlug = (slug: string): slug is S => (slugs as readonly string[]).includes(slug);
  const read = (locale: Locale, slug: S): string | null => {
    try {
      return readFileSync(join(dir, locale, `${slug}.md`), "utf8");
    } catch {
      return null;
    }
  };
  const collection = {
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
      const filled = source.replace(/\{\{(\w+)\}\}/g, (whole, name: string) => options.values[name] ?? whole);
      const { meta, body } = splitFrontMatter(filled);
      // The page shows the title itself: the Markdown's own first heading is left out
      const { html, toc } = renderDocMarkdown(body.replace(/^\s*# .*\n+/, ""), options.locale);
      const page: MarkdownPage<S> = {
        slug: options.slug,
        title: meta.title ?? options.slug,
        description: meta.description ?? "",
        html,
        toc,
        locale: own === null ? DEFAULT_LOCALE : options.locale,
        fallback: own === null,
        updated: meta.updated,
      };
      cache.set(key, page);
      return page;
    },
    translations(slug: S): { locale: Locale; updated?: string }[] {
      return LOCALES.flatMap((locale) => {
        const source = read(locale, slug);
        return source === null ? [] : [{ locale, updated: splitFrontMatter(source).meta.updated }];
      });
    },
    forget: () => cache.clear(),
  };
  collections.push(collection);
  return collection;
}

/** Every Markdown page with its title and summary, for the docs index. */
export function listDocs(options: {
  locale: Locale;
  values: DocValues;
}): Pick<Doc, "slug" | "title" | "description">[] {
  return DOC_SLUGS.map((slug) => getDoc({ slug, locale: options.locale, values: options.values })!).map(
    ({ slug, title, description }) => ({ slug, title, description }),
  );
}
