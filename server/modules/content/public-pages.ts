import { LOCALES, type Locale } from "#common/locales.ts";
import { DOC_SLUGS, docTranslations, listDocs, type DocValues } from "./get-doc.ts";
import { LEGAL_SLUGS, legalTranslations } from "./get-legal.ts";
import { postTranslations, publishedPosts } from "./blog.ts";

/** A page anyone may read and a search engine may list: its path without a locale, and the languages it exists in. */
export interface PublicPage {
  path: string;
  locales: { locale: Locale; updated?: string }[];
}

const everywhere = LOCALES.map((locale) => ({ locale }));

/**
 * Every public page worth listing, in the languages it is written in. A page shown in English for want of a
 * translation is not listed under the other language (its canonical URL is the English one). Signed-in pages,
 * the sign-in forms and shared generations are never listed.
 */
export function listPublicPages(values: DocValues): PublicPage[] {
  const posts = publishedPosts({ locale: "en", values });
  const newest = posts[0]?.updated;
  return [
    { path: "/", locales: everywhere },
    { path: "/pricing", locales: everywhere },
    { path: "/test", locales: everywhere },
    { path: "/verify", locales: everywhere },
    { path: "/blog", locales: LOCALES.map((locale) => ({ locale, updated: newest })) },
    ...posts.map((post) => ({ path: `/blog/${post.slug}`, locales: postTranslations(post.slug) })),
    { path: "/docs", locales: everywhere },
    { path: "/docs/api-reference", locales: everywhere },
    ...DOC_SLUGS.map((slug) => ({ path: `/docs/${slug}`, locales: docTranslations(slug) })),
    ...LEGAL_SLUGS.map((slug) => ({ path: `/legal/${slug}`, locales: legalTranslations(slug) })),
  ];
}

/** The blog's articles for `llms.txt`: title, summary and path of each, in English, newest first. */
export function listArticles(values: DocValues): { title: string; description: string; path: string }[] {
  return publishedPosts({ locale: "en", values }).map((post) => ({
    title: post.title,
    description: post.description,
    path: `/blog/${post.slug}`,
  }));
}

/** The guides and reference for `llms.txt`: title, summary and path of each, in English. */
export function listGuides(values: DocValues): { title: string; description: string; path: string }[] {
  return listDocs({ locale: "en", values }).map((doc) => ({
    title: doc.title,
    description: doc.description,
    path: `/docs/${doc.slug}`,
  }));
}
