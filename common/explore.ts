import { z } from "zod";
import { GENERATION_KINDS, GENERATION_TOOLS } from "./generation.ts";

/** Explore's orders: likes with time decay, the newest first, the most remixed first. */
export const EXPLORE_SORTS = ["trending", "newest", "remixed"] as const;
export type ExploreSort = (typeof EXPLORE_SORTS)[number];

/** Results on one page of explore (and what one scroll loads). */
export const EXPLORE_PAGE_SIZE = 24;
/** The last page explore lists: deeper than this, a search or a filter finds it better. */
export const EXPLORE_MAX_PAGE = 200;
/** The longest search explore takes. */
export const EXPLORE_QUERY_MAX = 200;

/** Explore's address query. A value it does not know is no filter, so an old or hand-made link still shows a page. */
export const exploreQuerySchema = z.object({
  q: z
    .string()
    .transform((q) => q.trim().slice(0, EXPLORE_QUERY_MAX))
    .optional()
    .catch(undefined),
  kind: z.enum(GENERATION_KINDS).optional().catch(undefined),
  tool: z.enum(GENERATION_TOOLS).optional().catch(undefined),
  model: z
    .string()
    .regex(/^[a-z0-9][a-z0-9._-]{0,99}$/)
    .optional()
    .catch(undefined),
  /** Only the creators the visitor follows. */
  feed: z.literal("following").optional().catch(undefined),
  sort: z.enum(EXPLORE_SORTS).catch("trending").default("trending"),
  page: z.coerce.number().int().min(1).max(EXPLORE_MAX_PAGE).catch(1).default(1),
});
export type ExploreQuery = z.output<typeof exploreQuerySchema>;

/** The query of `params`, read as explore reads it. */
export function readExploreQuery(params: URLSearchParams): ExploreQuery {
  return exploreQuerySchema.parse(Object.fromEntries([...params].filter(([, v]) => v !== "")));
}

/** The address of explore with `query` (defaults left out, so the plain page has one address). */
export function exploreSearch(query: Partial<ExploreQuery>): string {
  const params = new URLSearchParams();
  if (query.q) params.set("q", query.q);
  if (query.kind) params.set("kind", query.kind);
  if (query.tool) params.set("tool", query.tool);
  if (query.model) params.set("model", query.model);
  if (query.feed) params.set("feed", query.feed);
  if (query.sort && query.sort !== "trending") params.set("sort", query.sort);
  if (query.page && query.page > 1) params.set("page", String(query.page));
  const text = params.toString();
  return text ? `?${text}` : "";
}

/** A creator's handle: 3 to 30 lowercase letters, digits, `_` or `-`, starting with a letter (`/u/{handle}`). */
export const HANDLE_PATTERN = /^[a-z][a-z0-9_-]{2,29}$/;
export const HANDLE_MAX = 30;
export const BIO_MAX = 300;

/**
 * Handles nobody may take: the site's own words (its sections, roles and the names people would mistake for it),
 * in every form a handle can have.
 */
export const RESERVED_HANDLES: ReadonlySet<string> = new Set([
  "about",
  "account",
  "admin",
  "administrator",
  "api",
  "app",
  "assets",
  "atelier",
  "auth",
  "billing",
  "blog",
  "chat",
  "contact",
  "dashboard",
  "docs",
  "explore",
  "feed",
  "files",
  "help",
  "home",
  "index",
  "legal",
  "login",
  "logout",
  "me",
  "media",
  "moderator",
  "mod",
  "new",
  "null",
  "official",
  "owner",
  "pricing",
  "privacy",
  "profile",
  "register",
  "root",
  "search",
  "security",
  "settings",
  "share",
  "signin",
  "signup",
  "site",
  "staff",
  "static",
  "status",
  "support",
  "system",
  "team",
  "terms",
  "test",
  "u",
  "undefined",
  "user",
  "users",
  "verify",
  "webmaster",
  "www",
]);

/** A handle as typed (`@Ada `), as it is kept (`ada`). */
export const normalizeHandle = (typed: string) => typed.trim().replace(/^@/, "").toLowerCase();
