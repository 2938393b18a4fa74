import type { ReactNode } from "react";
import { Alert } from "#app/components/ui/display.tsx";
import { Title } from "#app/components/ui/typography.tsx";

/** A page of the site's Markdown content as the server rendered it: its title, text and table of contents. */
export interface RenderedPage {
  title: string;
  /** Rendered on the server from the project's Markdown with raw HTML disabled. */
  html: string;
  toc: { id: string; text: string }[];
  /** The language the text is in, and whether that is English for want of a translation. */
  locale: string;
  fallback: boolean;
}

/** What a loader sends of a rendered page: only what the article shows. */
export const renderedPage = ({ title, html, toc, locale, fallback }: RenderedPage): RenderedPage => ({
  title,
  html,
  toc,
  locale,
  fallback,
});

/**
 * A content page (a guide, a legal text, an article): title, what comes under it, the notice of an untranslated
 * text, the text, and its sections beside it.
 */
export function ContentArticle({
  page,
  labels,
  before,
  after,
  end,
}: {
  page: RenderedPage;
  /** The table of contents' heading, and the notice shown over a text in English for want of a translation. */
  labels: { toc: string; fallback: string };
  before?: ReactNode;
  after?: ReactNode;
  /** Under the text, in the article's column. */
  end?: ReactNode;
}) {
  return (
    <div className="page-wide docs-page">
      {before}
      <div className="docs-layout">
        <article className="docs-article" lang={page.locale}>
          <Title level={1}>{page.title}</Title>
          {after}
          {page.fallback && <Alert type="info" title={labels.fallback} className="docs-fallback" />}
          <div className="docs-prose" dangerouslySetInnerHTML={{ __html: page.html }} />
          {end}
        </article>
        {page.toc.length > 0 && (
          <nav className="docs-toc" aria-labelledby="docs-toc-title">
            <p id="docs-toc-title" className="docs-toc-title">
              {labels.toc}
            </p>
            <ul>
              {page.toc.map((h) => (
                <li key={h.id}>
                  <a href={`#${h.id}`}>{h.text}</a>
                </li>
              ))}
            </ul>
          </nav>
        )}
      </div>
    </div>
  );
}
