import { useTranslation } from "react-i18next";
import { Link, data, useLocation } from "react-router";
import type { Route } from "./+types/post";
import { ContentArticle, renderedPage } from "#app/components/content-article.tsx";
import { PostCard, PostMeta, postCard } from "#app/components/blog/post-card.tsx";
import { feedLink } from "#app/components/blog/feed-icon.tsx";
import { seoMeta } from "#app/seo.ts";
import { pageMeta } from "#app/lib/page.server.ts";
import { pathLocale } from "#app/lib/request.server.ts";
import { contentValues } from "#app/lib/content-values.server.ts";
import { getPost, postTranslations } from "#server/modules/content/blog.ts";
import { formatDate } from "#common/format.ts";
import { hrefIn, localizedUrl } from "#common/locales.ts";

export const meta = ({ loaderData }: Route.MetaArgs) => [
  ...seoMeta(loaderData?.seo),
  ...(loaderData ? [feedLink(loaderData.feed)] : []),
];

/** An article: its text with a table of contents, who wrote it and when, and what to read next. */
export function loader({ context, request, params }: Route.LoaderArgs) {
  const locale = pathLocale(request);
  const post = getPost({ slug: params.slug, locale, values: contentValues(context) });
  if (!post) throw data(null, { status: 404 });
  const { i18n, seo, t, site } = pageMeta(context, request, ["blog"], (t, site) => {
    const url = localizedUrl(site.url, `/blog/${post.slug}`, post.locale);
    return {
      title: post.title,
      description: post.description,
      translations: postTranslations(post.slug).map((l) => l.locale),
      type: "article",
      jsonLd: [
        {
          "@context": "https://schema.org",
          "@type": "BlogPosting",
          headline: post.title,
          description: post.description,
          inLanguage: post.locale,
          datePublished: post.date,
          dateModified: post.updated,
          author: { "@type": "Organization", name: post.author || site.name, url: site.url },
          publisher: { "@type": "Organization", name: site.name, url: site.url },
          mainEntityOfPage: url,
          url,
          ...(post.cover ? { image: `${site.url}${post.cover}` } : {}),
          keywords: post.tags.map((tag) => t(`blog:tag.${tag}`, { defaultValue: tag })).join(", "),
        },
        {
          "@context": "https://schema.org",
          "@type": "BreadcrumbList",
          itemListElement: [
            { "@type": "ListItem", position: 1, name: t("nav.home"), item: localizedUrl(site.url, "/", locale) },
            {
              "@type": "ListItem",
              position: 2,
              name: t("blog:index.title"),
              item: localizedUrl(site.url, "/blog", locale),
            },
            { "@type": "ListItem", position: 3, name: post.title, item: url },
          ],
        },
      ],
    };
  });
  return {
    seo,
    i18n,
    page: renderedPage(post),
    card: postCard(post, locale),
    author: post.author || site.name,
    updated: post.updated > post.date ? formatDate(locale, post.updated, { dateOnly: true }) : null,
    previous: post.previous,
    next: post.next,
    related: post.related.map((p) => postCard(p, locale)),
    feed: { title: t("blog:index.rss"), href: localizedUrl(site.url, "/blog/rss.xml", locale) },
  };
}

export default function BlogPost({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("blog");
  const { pathname } = useLocation();
  const { page, card, previous, next, related } = loaderData;
  const blog = hrefIn(pathname, "/blog");
  return (
    <>
      <ContentArticle
        page={page}
        labels={{ toc: t("post.toc"), fallback: t("post.fallback") }}
        before={
          <nav className="docs-breadcrumb">
            <Link to={blog}>{t("post.all")}</Link>
          </nav>
        }
        after={
          <div className="blog-post-head">
            <p className="blog-byline">
              {t("post.by", { author: loaderData.author })}
              {loaderData.updated && (
                <>
                  <span aria-hidden> · </span>
                  {t("post.updated", { date: loaderData.updated })}
                </>
              )}
            </p>
            <PostMeta {...card} />
            {card.tags.length > 0 && (
              <ul className="blog-post-tags" aria-label={t("post.tags")}>
                {card.tags.map((tag) => (
                  <li key={tag}>
                    <Link to={`${blog}?tag=${encodeURIComponent(tag)}`} className="blog-topic">
                      {t(`tag.${tag}`, { defaultValue: tag })}
                    </Link>
                  </li>
                ))}
              </ul>
            )}
            {card.cover && (
              <img className="blog-cover blog-post-cover" src={card.cover} alt="" width={1200} height={630} />
            )}
          </div>
        }
        end={
          (previous || next) && (
            <nav className="blog-adjacent" aria-label={t("post.more")}>
              {previous ? (
                <Link to={`${blog}/${previous.slug}`} rel="prev" className="blog-adjacent-link">
                  <span className="blog-adjacent-label">← {t("post.previous")}</span>
                  <span className="blog-adjacent-title">{previous.title}</span>
                </Link>
              ) : (
                <span />
              )}
              {next && (
                <Link to={`${blog}/${next.slug}`} rel="next" className="blog-adjacent-link blog-adjacent-next">
                  <span className="blog-adjacent-label">{t("post.next")} →</span>
                  <span className="blog-adjacent-title">{next.title}</span>
                </Link>
              )}
            </nav>
          )
        }
      />
      {related.length > 0 && (
        <section className="page-wide blog-related" aria-labelledby="blog-related-title">
          <h2 id="blog-related-title" className="section-title">
            {t("post.related")}
          </h2>
          <ul className="blog-cards">
            {related.map((post) => (
              <li key={post.slug}>
                <PostCard post={post} />
              </li>
            ))}
          </ul>
        </section>
      )}
    </>
  );
}
