import { useTranslation } from "react-i18next";
import { Link, useLocation } from "react-router";
import type { PostSummary } from "#server/modules/content/blog.ts";
import { formatDate } from "#common/format.ts";
import { hrefIn, type Locale } from "#common/locales.ts";

/** What a list shows of an article, with its date written for the reader. */
export interface PostCardData {
  slug: string;
  title: string;
  description: string;
  /** YYYY-MM-DD, and as the reader writes dates. */
  date: string;
  dateText: string;
  readingMinutes: number;
  tags: string[];
  cover?: string;
  locale: string;
}

export function postCard(post: PostSummary, locale: Locale): PostCardData {
  return {
    slug: post.slug,
    title: post.title,
    description: post.description,
    date: post.date,
    dateText: formatDate(locale, post.date, { dateOnly: true }),
    readingMinutes: post.readingMinutes,
    tags: post.tags,
    cover: post.cover,
    locale: post.locale,
  };
}

/** The date and reading time of an article. */
export function PostMeta({
  date,
  dateText,
  readingMinutes,
}: Pick<PostCardData, "date" | "dateText" | "readingMinutes">) {
  const { t } = useTranslation("blog");
  return (
    <p className="blog-meta">
      <time dateTime={date}>{dateText}</time>
      <span aria-hidden> · </span>
      <span>{t("post.readingTime", { count: readingMinutes })}</span>
    </p>
  );
}

/** An article in a list: its cover, topics, title, summary, date and reading time; the title's link covers the card. */
export function PostCard({ post, eager = false }: { post: PostCardData; eager?: boolean }) {
  const { t } = useTranslation("blog");
  const { pathname } = useLocation();
  return (
    <article className="blog-card" lang={post.locale}>
      {post.cover && (
        <img
          className="blog-cover"
          src={post.cover}
          alt=""
          width={1200}
          height={630}
          loading={eager ? "eager" : "lazy"}
          decoding="async"
        />
      )}
      <div className="blog-card-body">
        {post.tags.length > 0 && (
          <p className="blog-card-tags">{post.tags.map((tag) => t(`tag.${tag}`, { defaultValue: tag })).join(" · ")}</p>
        )}
        <h2 className="blog-card-title">
          <Link to={hrefIn(pathname, `/blog/${post.slug}`)} className="blog-card-link">
            {post.title}
          </Link>
        </h2>
        <p className="blog-card-text">{post.description}</p>
        <PostMeta {...post} />
      </div>
    </article>
  );
}
