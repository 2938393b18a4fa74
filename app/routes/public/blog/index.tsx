import { useTranslation } from "react-i18next";
import { Link, data, useLocation } from "react-router";
import type { Route } from "./+types/index";
import { seoMeta } from "#app/seo.ts";
import { pageMeta } from "#app/lib/page.server.ts";
import { pathLocale } from "#app/lib/request.server.ts";
import { contentValues } from "#app/lib/content-values.server.ts";
import { PostCard, postCard } from "#app/components/blog/post-card.tsx";
import { FeedIcon, feedLink } from "#app/components/blog/feed-icon.tsx";
import { listPosts } from "#server/modules/content/blog.ts";
import { hrefIn, localizedUrl } from "#common/locales.ts";
import { Paragraph, Title } from "#app/components/ui/typography.tsx";

export const meta = ({ loaderData }: Route.MetaArgs) => [
  ...seoMeta(loaderData?.seo),
  ...(loaderData ? [feedLink(loaderData.feed)] : []),
];

/** `?page=N` and `?tag=…`: anything else in the query, or a page that is not a plain number, is no page of the blog. */
function readQuery(url: URL): { page: number; tag?: string } | null {
  for (const name of url.searchParams.keys()) {
    if ((name !== "page" && name !== "tag") || url.searchParams.getAll(name).length > 1) return null;
  }
  const page = url.searchParams.get("page");
  if (page !== null && !/^[1-9]\d{0,3}$/.test(page)) return null;
  const tag = url.searchParams.get("tag") ?? undefined;
  return { page: page === null ? 1 : Number(page), tag };
}

/** The query of a page of the list, as its links and canonical address write it. */
function queryOf(page: number, tag?: string): string {
  const params = new URLSearchParams();
  if (tag) params.set("tag", tag);
  if (page > 1) params.set("page", String(page));
  const query = params.toString();
  return query ? `?${query}` : "";
}

/** The blog's list: newest first, a page at a time, of every article or of one topic. */
export function loader({ context, request }: Route.LoaderArgs) {
  const url = new URL(request.url);
  const query = readQuery(url);
  const locale = pathLocale(request);
  const list = query && listPosts({ locale, values: contentValues(context), page: query.page, tag: query.tag });
  if (!query || !list) throw data(null, { status: 404 });
  const { i18n, seo, t, site } = pageMeta(context, request, ["blog"], (t, site) => {
    const tagName = query.tag && t(`blog:tag.${query.tag}`, { defaultValue: query.tag });
    const title = tagName ? t("blog:index.tagTitle", { tag: tagName }) : t("blog:index.title");
    return {
      title: list.page > 1 ? t("blog:index.pageTitle", { title, page: list.page }) : title,
      description: tagName ? t("blog:index.tagIntro", { tag: tagName }) : t("blog:index.intro", { site: site.name }),
      search: queryOf(list.page, query.tag),
    };
  });
  return {
    seo,
    i18n,
    // The line under the heading is the page's description
    intro: seo.description!,
    tag: query.tag ?? null,
    page: list.page,
    pages: list.pages,
    tags: list.tags,
    posts: list.posts.map((post) => postCard(post, locale)),
    feed: { title: t("blog:index.rss"), href: localizedUrl(site.url, "/blog/rss.xml", locale) },
  };
}

export default function BlogIndex({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("blog");
  const { pathname } = useLocation();
  const { tag, page, pages, tags, posts } = loaderData;
  const blog = hrefIn(pathname, "/blog");
  const tagName = (id: string) => t(`tag.${id}`, { defaultValue: id });
  return (
    <div className="page-wide blog-index">
      <header className="blog-head">
        <div>
          <Title level={1}>{tag ? t("index.tagTitle", { tag: tagName(tag) }) : t("index.title")}</Title>
          <Paragraph type="secondary" className="docs-lead">
            {loaderData.intro}
          </Paragraph>
        </div>
        <a className="blog-feed" href={`${blog}/rss.xml`} type="application/rss+xml">
          <FeedIcon />
          {t("index.rss")}
        </a>
      </header>
      {tags.length > 1 && (
        <nav className="blog-topics" aria-label={t("index.topics")}>
          <Link to={blog} className="blog-topic" aria-current={tag === null ? "page" : undefined}>
            {t("index.all")}
          </Link>
          {tags.map((entry) => (
            <Link
              key={entry.tag}
              to={`${blog}${queryOf(1, entry.tag)}`}
              className="blog-topic"
              aria-current={tag === entry.tag ? "page" : undefined}
            >
              {tagName(entry.tag)} <span className="blog-topic-count">{entry.count}</span>
            </Link>
          ))}
        </nav>
      )}
      {posts.length === 0 ? (
        <Paragraph type="secondary">{t("index.empty")}</Paragraph>
      ) : (
        <ul className="blog-cards">
          {posts.map((post, i) => (
            <li key={post.slug}>
              <PostCard post={post} eager={page === 1 && i === 0} />
            </li>
          ))}
        </ul>
      )}
      {pages > 1 && (
        <nav className="blog-pages" aria-label={t("index.pagination")}>
          {page > 1 ? (
            <Link to={`${blog}${queryOf(page - 1, tag ?? undefined)}`} rel="prev">
              ← {t("index.newer")}
            </Link>
          ) : (
            <span />
          )}
          <span>{t("index.pageOf", { page, pages })}</span>
          {page < pages ? (
            <Link to={`${blog}${queryOf(page + 1, tag ?? undefined)}`} rel="next">
              {t("index.older")} →
            </Link>
          ) : (
            <span />
          )}
        </nav>
      )}
    </div>
  );
}
