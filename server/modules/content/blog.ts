import type { Locale } from "#common/locales.ts";
import { frontMatterText, markdownCollection, type FrontMatter, type MarkdownPage } from "./markdown.ts";

/** What the articles fill in: this site's address and name. */
export type BlogValues = Record<"origin" | "site", string>;

/** How many articles a page of the blog lists. */
export const POSTS_PER_PAGE = 6;
/** How many related articles an article suggests. */
const RELATED = 3;

/** An article as the blog's list shows it. */
export interface PostSummary {
  slug: string;
  title: string;
  description: string;
  /** Published, YYYY-MM-DD. */
  date: string;
  /** Last changed, YYYY-MM-DD. */
  updated: string;
  author: string;
  /** Identifiers (`api`, `prompts`…), the same in every language; their names are translated by the page. */
  tags: string[];
  /** A path on this site. */
  cover?: string;
  readingMinutes: number;
  /** The language the text is in: English when it has no translation yet. */
  locale: Locale;
  fallback: boolean;
}

/** An article with its text, table of contents and the ones to read next. */
export interface Post extends PostSummary {
  html: string;
  toc: { id: string; text: string }[];
  /** The next older and the next newer article. */
  previous: Pick<PostSummary, "slug" | "title"> | null;
  next: Pick<PostSummary, "slug" | "title"> | null;
  related: PostSummary[];
}

const posts = markdownCollection("blog");

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const text = (value: FrontMatter[string] | undefined) => frontMatterText(value) ?? "";

function tagsOf(value: FrontMatter[string] | undefined): string[] {
  const list = Array.isArray(value) ? value : (value ?? "").split(",");
  return list.map((tag) => tag.trim().toLowerCase()).filter((tag) => /^[a-z0-9-]+$/.test(tag));
}

function summaryOf(page: MarkdownPage<string>): PostSummary {
  const date = text(page.meta.date);
  const updated = text(page.meta.updated);
  const cover = text(page.meta.cover);
  return {
    slug: page.slug,
    title: page.title,
    description: page.description,
    date,
    updated: DATE.test(updated) && updated > date ? updated : date,
    author: text(page.meta.author),
    tags: tagsOf(page.meta.tags),
    // Only a picture of this site: an article cannot make the reader's browser call elsewhere
    ...(cover.startsWith("/") && !cover.startsWith("//") ? { cover } : {}),
    readingMinutes: page.readingMinutes,
    locale: page.locale,
    fallback: page.fallback,
  };
}

/**
 * Every published article in the reader's language (in English, marked as such, where it has no translation),
 * newest first. An article is published from its `date` on: one dated later waits, and one without a valid date
 * is never shown.
 */
export function publishedPosts(options: { locale: Locale; values: BlogValues; today?: string }): PostSummary[] {
  const today = options.today ?? new Date().toISOString().slice(0, 10);
  return posts
    .slugs()
    .map((slug) => summaryOf(posts.get({ slug, locale: options.locale, values: options.values })!))
    .filter((post) => DATE.test(post.date) && post.date <= today)
    .sort((a, b) => b.date.localeCompare(a.date) || a.slug.localeCompare(b.slug));
}

/**
 * One page of the blog's list, of every article or of those with `tag`; null for a page past the end or a tag no
 * article has. The tags come with how many articles carry each, most used first.
 */
export function listPosts(options: { locale: Locale; values: BlogValues; page: number; tag?: string; today?: string }) {
  const all = publishedPosts(options);
  const counts = new Map<string, number>();
  for (const post of all) for (const tag of post.tags) counts.set(tag, (counts.get(tag) ?? 0) + 1);
  const tags = [...counts]
    .map(([tag, count]) => ({ tag, count }))
    .sort((a, b) => b.count - a.count || a.tag.localeCompare(b.tag));
  const { tag } = options;
  if (tag !== undefined && !counts.has(tag)) return null;
  const matching = tag === undefined ? all : all.filter((post) => post.tags.includes(tag));
  const pages = Math.max(1, Math.ceil(matching.length / POSTS_PER_PAGE));
  if (!Number.isInteger(options.page) || options.page < 1 || options.page > pages) return null;
  const start = (options.page - 1) * POSTS_PER_PAGE;
  return {
    posts: matching.slice(start, start + POSTS_PER_PAGE),
    page: options.page,
    pages,
    total: matching.length,
    tags,
  };
}

/**
 * A published article in the reader's language (or in English, marked as such), with the next older and newer
 * ones and the articles sharing most of its tags; null for an unknown or unpublished slug.
 */
export function getPost(options: { slug: string; locale: Locale; values: BlogValues; today?: string }): Post | null {
  const all = publishedPosts(options);
  const at = all.findIndex((post) => post.slug === options.slug);
  if (at < 0) return null;
  const page = posts.get(options)!;
  const post = all[at]!;
  const link = (p: PostSummary | undefined) => (p ? { slug: p.slug, title: p.title } : null);
  const shared = (p: PostSummary) => p.tags.filter((tag) => post.tags.includes(tag)).length;
  const related = all
    .filter((p) => p.slug !== post.slug && shared(p) > 0)
    .sort((a, b) => shared(b) - shared(a) || b.date.localeCompare(a.date))
    .slice(0, RELATED);
  return { ...post, html: page.html, toc: page.toc, previous: link(all[at + 1]), next: link(all[at - 1]), related };
}

/** The languages an article is written in, each with its last change (for the sitemaps). */
export function postTranslations(slug: string): { locale: Locale; updated?: string }[] {
  return posts.translations(slug);
}
