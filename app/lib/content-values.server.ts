import { serverContextOf, siteOf } from "#app/lib/request.server.ts";
import type { DocValues } from "#server/modules/content/get-doc.ts";

/** What the Markdown content (docs, blog) fills in: this server's address and name, and the API's rate limit. */
export function contentValues(context: Parameters<typeof siteOf>[0]): DocValues {
  const site = siteOf(context);
  return {
    origin: new URL(site.url).origin,
    site: site.name,
    limit: String(serverContextOf(context).runtime.env.API_RATE_LIMIT_PER_MINUTE),
  };
}
