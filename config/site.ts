import type { Env } from "#server/env.ts";
import type { Locale } from "#common/locales.ts";

/** Third-party IDs: each script or tag is emitted only when its ID is set. */
export interface ThirdPartyIds {
  turnstileSiteKey?: string;
  clarityId?: string;
  ga4Id?: string;
  adsenseAccount?: string;
  googleSiteVerification?: string;
  bingSiteVerification?: string;
}

/** A credit pack sold through checkout; `amount` is in the currency's minor units (cents). */
export interface CreditPack {
  id: string;
  credits: number;
  amount: number;
  currency: string;
  popular?: boolean;
}

export const defaultPacks: CreditPack[] = [
  { id: "starter", credits: 100, amount: 500, currency: "usd" },
  { id: "creator", credits: 500, amount: 2000, currency: "usd", popular: true },
  { id: "studio", credits: 2000, amount: 7000, currency: "usd" },
];

export interface SiteConfig {
  name: string;
  url: string;
  supportEmail: string;
  primaryColor: string;
  defaultLocale: Locale;
  signupBonusCredits: number;
  packs: CreditPack[];
  thirdParty: ThirdPartyIds;
  /** Whether the public gallery (`/explore`) is open; the console turns it off. */
  explore: boolean;
}

/** Defaults an operator changes here or overrides with SITE_* variables. */
export const siteDefaults: SiteConfig = {
  name: "Atelier",
  url: "http://localhost:3000",
  supportEmail: "support@example.com",
  primaryColor: "#4f46e5",
  defaultLocale: "en",
  signupBonusCredits: 20,
  packs: defaultPacks,
  thirdParty: {},
  explore: true,
};

/**
 * Without `SITE_URL`, the address this server answers on locally: its own port, so the links in e-mails, the
 * canonical tags and the examples work on a machine where `PORT` is not 3000. Port 0 (any free port) cannot be
 * known before listening, so it keeps the default.
 */
const localUrl = (port: number) => (port > 0 ? `http://localhost:${port}` : siteDefaults.url);

export function resolveSiteConfig(env: Env): SiteConfig {
  return {
    ...siteDefaults,
    name: env.SITE_NAME ?? siteDefaults.name,
    url: (env.SITE_URL ?? localUrl(env.PORT)).replace(/\/+$/, ""),
    supportEmail: env.SITE_SUPPORT_EMAIL ?? siteDefaults.supportEmail,
    primaryColor: env.SITE_PRIMARY_COLOR ?? siteDefaults.primaryColor,
    defaultLocale: env.SITE_DEFAULT_LOCALE ?? siteDefaults.defaultLocale,
    signupBonusCredits: env.SIGNUP_BONUS_CREDITS ?? siteDefaults.signupBonusCredits,
    packs: env.CREDIT_PACKS ?? siteDefaults.packs,
    thirdParty: {
      turnstileSiteKey: env.TURNSTILE_SITE_KEY,
      clarityId: env.CLARITY_ID,
      ga4Id: env.GA4_ID,
      adsenseAccount: env.ADSENSE_ACCOUNT,
      googleSiteVerification: env.GOOGLE_SITE_VERIFICATION,
      bingSiteVerification: env.BING_SITE_VERIFICATION,
    },
  };
}

/** What the browser may see of the configuration. */
export type PublicSiteConfig = Pick<
  SiteConfig,
  "name" | "url" | "supportEmail" | "primaryColor" | "defaultLocale" | "signupBonusCredits" | "thirdParty" | "explore"
>;

export function publicSiteConfig(site: SiteConfig): PublicSiteConfig {
  return {
    name: site.name,
    url: site.url,
    supportEmail: site.supportEmail,
    primaryColor: site.primaryColor,
    defaultLocale: site.defaultLocale,
    signupBonusCredits: site.signupBonusCredits,
    // These IDs are public by nature: they end up in the page's tags.
    thirdParty: site.thirdParty,
    explore: site.explore,
  };
}
