import { serverContextOf, siteOf } from "#app/lib/request.server.ts";
import { docValuesOf, type DocValues } from "#server/modules/content/get-doc.ts";

/** What the Markdown content (docs, blog) fills in: this server's address and name, and the API's rate limits. */
export function contentValues(context: Parameters<typeof siteOf>[0]): DocValues {
  return docValuesOf(siteOf(context), serverContextOf(context).runtime.env);
}
