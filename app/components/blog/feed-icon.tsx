import type { MetaDescriptor } from "react-router";

/** The head's link to the blog's feed, for readers and browsers that discover feeds. */
export const feedLink = (feed: { title: string; href: string }): MetaDescriptor => ({
  tagName: "link",
  rel: "alternate",
  type: "application/rss+xml",
  title: feed.title,
  href: feed.href,
});

/** The web feed symbol. */
export function FeedIcon() {
  return (
    <svg viewBox="0 0 24 24" width="1em" height="1em" aria-hidden focusable="false" fill="currentColor">
      <circle cx="6" cy="18" r="2.2" />
      <path d="M4 10.5a9.5 9.5 0 0 1 9.5 9.5h-2.6A6.9 6.9 0 0 0 4 13.1z" />
      <path d="M4 4.5A15.5 15.5 0 0 1 19.5 20h-2.6A12.9 12.9 0 0 0 4 7.1z" />
    </svg>
  );
}
