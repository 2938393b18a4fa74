import type { SiteConfig } from "#config/site.ts";
import { serverT } from "#server/i18n/translations.ts";
import type { Locale } from "#common/locales.ts";
import { getDoc, type DocValues } from "./get-doc.ts";
import { getLegal, legalValues } from "./get-legal.ts";
import { getPost } from "./blog.ts";

/** The address of a public page's share picture: `/og/{locale}{path}.png`, the home page as `/og/{locale}/index.png`. */
export const shareImagePath = (locale: Locale, bare: string) => `/og/${locale}${bare === "/" ? "/index" : bare}.png`;

/**
 * What a public page's share picture says: its title and what kind of page it is, in `locale`; null for a path
 * that is not one of the site's public pages (so no picture can be made to say anything else).
 */
export function shareCardOf(
  path: string,
  locale: Locale,
  site: Pick<SiteConfig, "url" | "name" | "supportEmail" | "signupBonusCredits">,
  values: DocValues,
): { title: string; label: string } | null {
  const t = serverT(locale, ["common", "home", "billing", "docs", "blog", "status", "verify"]);
  const docs = t("nav.docs");
  const [, section, slug, extra] = path === "/" ? ["", "index"] : path.split("/");
  if (extra !== undefined) return null;
  switch (section) {
    case "index":
      return slug === undefined ? { title: t("home:title"), label: t("site.tagline") } : null;
    case "pricing":
      return slug === undefined ? { title: t("billing:pricing.title"), label: t("nav.pricing") } : null;
    case "test":
      return slug === undefined ? { title: t("status:title"), label: t("footer.status") } : null;
    case "verify":
      return slug === undefined ? { title: t("verify:title"), label: site.name } : null;
    case "docs": {
      if (slug === undefined) return { title: t("docs:index.title"), label: docs };
      if (slug === "api-reference") return { title: t("docs:reference.title"), label: docs };
      const doc = getDoc({ slug, locale, values });
      return doc ? { title: doc.title, label: docs } : null;
    }
    case "legal": {
      if (slug === undefined) return null;
      const page = getLegal({ slug, locale, values: legalValues(site) });
      return page ? { title: page.title, label: t("footer.legal") } : null;
    }
    case "blog": {
      if (slug === undefined) return { title: t("blog:index.title"), label: site.name };
      const post = getPost({ slug, locale, values });
      return post ? { title: post.title, label: t("nav.blog") } : null;
    }
    default:
      return null;
  }
}
