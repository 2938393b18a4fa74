import { Hono } from "hono";
import { LRUCache } from "lru-cache";
import type { SiteConfig } from "#config/site.ts";
import type { AppEnv } from "#server/http/request-context.ts";
import { renderShareImage } from "#server/modules/content/share-image.ts";
import type { DocValues } from "#server/modules/content/get-doc.ts";
import { shareCardOf } from "#server/modules/content/share-card.ts";
import { isLocale } from "#common/locales.ts";

/** Rendered pictures kept in memory, at most (each is some 30–60 KiB). */
const KEPT = 300;

/**
 * `GET /og/{locale}{path}.png`: the share picture of a public page in a language, drawn by the server on the site's
 * colour (CJK titles in Noto Sans CJK), made once and kept (`forget` when the content changes). Needs no database.
 */
export function shareImages(options: { site: SiteConfig; values: DocValues }) {
  const { site, values } = options;
  const made = new LRUCache<string, Promise<Buffer>>({ max: KEPT });
  const routes = new Hono<AppEnv>().get("/og/:locale{[a-z]{2}}/*", async (c) => {
    c.set("route", "share-image");
    const locale = c.req.param("locale");
    const rest = c.req.path.slice(`/og/${locale}`.length);
    if (!isLocale(locale) || !rest.endsWith(".png")) return c.text("Not found", 404);
    const path = rest.slice(0, -".png".length);
    const card = shareCardOf(path, locale, site, values);
    if (!card) return c.text("Not found", 404);
    const key = `${locale}${path}`;
    let png = made.get(key);
    if (!png) {
      png = renderShareImage({ ...card, site: site.name, color: site.primaryColor, locale });
      made.set(key, png);
      png.catch(() => made.delete(key));
    }
    return c.body(new Uint8Array(await png), 200, {
      "Content-Type": "image/png",
      "Cache-Control": "public, max-age=86400",
    });
  });
  return { routes, forget: () => made.clear() };
}
