/**
 * The site's public navigation. An entry appears only once its page exists: `ready` is switched on by the
 * change that brings the page, so no link ever leads to a page that is not there yet.
 */
export const HEADER_NAV = [
  { key: "home", to: "/", ready: true },
  { key: "pricing", to: "/pricing", ready: true },
  { key: "blog", to: "/blog", ready: false },
  { key: "docs", to: "/docs", ready: true },
] as const;

export const LEGAL_NAV = [
  { key: "terms", to: "/legal/terms" },
  { key: "privacy", to: "/legal/privacy" },
  { key: "refund", to: "/legal/refund" },
  { key: "cookies", to: "/legal/cookies" },
] as const;
