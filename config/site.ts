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

export interface SiteConfig {
  name: string;
  url: string;
  supportEmail: string;
  primaryColor: string;
  defaultLocale: Locale;
  signupBonusCredits: number;
  thirdParty: ThirdPartyIds;
}

/** Defaults an operator changes here or overrides with SITE_* variables. */
export const siteDefaults: SiteConfig = {
  name: "Atelier",
  url: "http://localhost:3000",
  supportEmail: "support@example.com",
  primaryColor: "#4f46e5",
  defaultLocale: "en",
  signupBonusCredits: 20,
  thirdParty: {},
};

export function resolveSiteConfig(env: Env): SiteConfig {
  return {
    ...siteDefaults,
    name: env.SITE_NAME ?? siteDefaults.name,
    url: (env.SITE_URL ?? siteDefaults.url).replace(/\/+$/, ""),
    supportEmail: env.SITE_SUPPORT_EMAIL ?? siteDefaults.supportEmail,
    primaryColor: env.SITE_PRIMARY_COLOR ?? siteDefaults.primaryColor,
    defaultLocale: env.SITE_DEFAULT_LOCALE ?? siteDefaults.defaultLocale,
    signupBonusCredits: env.SIGNUP_BONUS_CREDITS ?? siteDefaults.signupBonusCredits,
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
  "name" | "url" | "supportEmail" | "primaryColor" | "defaultLocale" | "signupBonusCredits" | "thirdParty"
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
  };
}
