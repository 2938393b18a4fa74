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
  if (query.sort && query.sort !== "trending") params.set("sort", query.sort);
  if (query.page && query.page > 1) params.set("page", String(query.page));
  const text = params.toString();
  return text ? `?${text}` : "";
}
