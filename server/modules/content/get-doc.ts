import type { Locale } from "#common/locales.ts";
import { markdownCollection, type MarkdownPage } from "./markdown.ts";

/** The documentation pages written in Markdown, in the order the docs index lists them. */
/** The documentation's pages, by who reads them: people making things, developers, and operators. */
export const DOC_GROUPS = {
  creators: ["getting-started", "credits", "images", "videos", "chat", "explore", "provenance", "content-checks"],
  developers: ["api-keys", "api", "openai", "webhooks"],
  operators: ["self-hosting", "configuration", "models", "comfyui", "billing", "operator-duties"],
} as const;
export type DocGroup = keyof typeof DOC_GROUPS;
export const DOC_SLUGS = Object.values(DOC_GROUPS).flat();
export type DocSlug = (typeof DOC_SLUGS)[number];

export type Doc = MarkdownPage<DocSlug>;

/** Values the pages refer to as `{{name}}`: this server's address, name and limits. */
export type DocValues = Record<"origin" | "site" | "limit" | "accountLimit" | "waitSeconds", string>;

/** What the content fills in: this server's address and name, and the public API's rate limits and wait. */
export function docValuesOf(
  site: { url: string; name: string },
  env: { API_RATE_LIMIT_PER_MINUTE: number; API_ACCOUNT_RATE_LIMIT_PER_MINUTE: number; API_WAIT_SECONDS?: number },
): DocValues {
  return {
    origin: new URL(site.url).origin,
    site: site.name,
    limit: String(env.API_RATE_LIMIT_PER_MINUTE),
    accountLimit: String(env.API_ACCOUNT_RATE_LIMIT_PER_MINUTE),
    waitSeconds: String(env.API_WAIT_SECONDS ?? 90),
  };
}

const docs = markdownCollection<DocSlug>("docs", DOC_SLUGS);

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

/** Every Markdown page with its title and summary, for the docs index. */
export function listDocs(options: {
  locale: Locale;
  values: DocValues;
}): Pick<Doc, "slug" | "title" | "description">[] {
  return DOC_SLUGS.map((slug) => getDoc({ slug, locale: options.locale, values: options.values })!).map(
    ({ slug, title, description }) => ({ slug, title, description }),
  );
}
