import type { SiteConfig } from "#config/site.ts";
import type { Locale } from "#common/locales.ts";
import { markdownCollection, type MarkdownPage } from "./markdown.ts";

export const LEGAL_SLUGS = ["terms", "refund", "cookies", "privacy"] as const;
export type LegalSlug = (typeof LEGAL_SLUGS)[number];

/** What the legal texts fill in: this site's address, name and support address, and the sign-up bonus. */
export type LegalValues = Record<"origin" | "site" | "email" | "bonus", string>;

/** The legal texts' values from the site's settings. */
export function legalValues(
  site: Pick<SiteConfig, "url" | "name" | "supportEmail" | "signupBonusCredits">,
): LegalValues {
  return {
    origin: new URL(site.url).origin,
    site: site.name,
    email: site.supportEmail,
    bonus: String(site.signupBonusCredits),
  };
}

export type LegalPage = MarkdownPage<LegalSlug>;

const legal = markdownCollection<LegalSlug>("legal", LEGAL_SLUGS);

/**
 * A legal page (`content/legal/{locale}/{slug}.md`) in the reader's language with this site's details filled in,
 * or in English (marked as such) when it has no translation; null for a page that does not exist.
 */
export function getLegal(options: { slug: string; locale: Locale; values: LegalValues }): LegalPage | null {
  return legal.get(options);
}

/** The languages a legal page is written in, each with its `updated` date (for the sitemaps). */
export function legalTranslations(slug: LegalSlug): { locale: Locale; updated?: string }[] {
  return legal.translations(slug);
}
