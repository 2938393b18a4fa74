/**
 * The site's public navigation. An entry appears only once its page exists: `ready` is switched on by the
 * change that brings the page, so no link ever leads to a page that is not there yet.
 */
export const HEADER_NAV = [
  { key: "home", to: "/", ready: true },
  // Shown while the console keeps the gallery open.
  { key: "explore", to: "/explore", ready: true },
  { key: "pricing", to: "/pricing", ready: true },
  { key: "blog", to: "/blog", ready: true },
  { key: "docs", to: "/docs", ready: true },
] as const;

/** The footer's columns: a heading (`footer.*`) and its links (labelled by `footer.*`). */
export const FOOTER_NAV = [
  {
    key: "product",
    links: [
      { key: "images", to: "/dashboard/image" },
      { key: "videos", to: "/dashboard/video" },
      { key: "apiKeys", to: "/dashboard/api" },
      { key: "pricing", to: "/pricing" },
    ],
  },
  {
    key: "resources",
    links: [
      { key: "docs", to: "/docs" },
      { key: "apiReference", to: "/docs/api-reference" },
      { key: "blog", to: "/blog" },
      { key: "status", to: "/test" },
    ],
  },
  {
    key: "legal",
    links: [
      { key: "terms", to: "/legal/terms" },
      { key: "privacy", to: "/legal/privacy" },
      { key: "refund", to: "/legal/refund" },
      { key: "cookies", to: "/legal/cookies" },
    ],
  },
] as const;
