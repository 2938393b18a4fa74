import { betterAuth } from "better-auth";
import { drizzleAdapter } from "better-auth/adapters/drizzle";
import { admin } from "better-auth/plugins/admin";
import { genericOAuth, type GenericOAuthConfig } from "better-auth/plugins/generic-oauth";
import type { Logger } from "pino";
import type { Db } from "#server/db/client.ts";
import type { Env } from "#server/env.ts";
import type { PgBoss } from "#server/jobs/boss.ts";
import type { SiteConfig } from "#config/site.ts";
import type { SettingsStore } from "#server/modules/settings/settings-store.ts";
import { grantSignupBonus } from "#server/modules/credits/grant-signup-bonus.ts";
import * as schema from "#server/db/schema/index.ts";
import { consumeRateLimit } from "#server/modules/rate-limits/consume-rate-limit.ts";
import { queueMail } from "#server/modules/mail/queue-mail.ts";
import { promoteConfiguredAdmin } from "#server/modules/users/promote-configured-admin.ts";
import { localizePath, isLocale, DEFAULT_LOCALE } from "#common/locales.ts";
import {
  CLIENT_IP_HEADER,
  PASSWORD_MAX,
  PASSWORD_MIN,
  RATE_LIMITS,
  RESET_TOKEN_SECONDS,
  SESSION_DAYS,
  SESSION_REFRESH_SECONDS,
  VERIFY_TOKEN_SECONDS,
} from "#server/modules/auth/policy.ts";

export interface AuthDeps {
  db: Db;
  env: Env;
  site: SiteConfig;
  logger: Logger;
  boss: PgBoss;
  secret: string;
  /** The sign-up bonus is read from these when it is granted: the console may have changed it. */
  settings: Pick<SettingsStore, "current">;
}

export const COOKIE_PREFIX = "atelier";

/** The sign-in providers configured in the environment, in the order their buttons appear. */
export function oauthProviders(env: Env): Array<{ id: string; name: string }> {
  const list: Array<{ id: string; name: string }> = [];
  if (env.GITHUB_CLIENT_ID && env.GITHUB_CLIENT_SECRET) list.push({ id: "github", name: "GitHub" });
  if (env.GOOGLE_CLIENT_ID && env.GOOGLE_CLIENT_SECRET) list.push({ id: "google", name: "Google" });
  if (oidcConfig(env)) list.push({ id: "oidc", name: env.OIDC_NAME ?? "SSO" });
  return list;
}

function oidcConfig(env: Env): GenericOAuthConfig | undefined {
  if (!env.OIDC_CLIENT_ID) return undefined;
  if (!env.OIDC_DISCOVERY_URL && !(env.OIDC_AUTHORIZATION_URL && env.OIDC_TOKEN_URL)) return undefined;
  return {
    providerId: "oidc",
    name: env.OIDC_NAME ?? "SSO",
    clientId: env.OIDC_CLIENT_ID,
    clientSecret: env.OIDC_CLIENT_SECRET,
    discoveryUrl: env.OIDC_DISCOVERY_URL,
    authorizationUrl: env.OIDC_AUTHORIZATION_URL,
    tokenUrl: env.OIDC_TOKEN_URL,
    userInfoUrl: env.OIDC_USERINFO_URL,
    scopes: ["openid", "email", "profile"],
    pkce: true,
    // OpenID userinfo names the account `sub`; plain OAuth 2.0 servers often say `id`.
    accountSubject: ({ profile }) => {
      const p = profile as { sub?: unknown; id?: unknown };
      return String(p.sub ?? p.id ?? "");
    },
  };
}

const localeOf = (value: unknown) => (isLocale(value) ? value : DEFAULT_LOCALE);

export function createAuth({ db, env, site, logger, boss, secret, settings }: AuthDeps) {
  const authLogger = logger.child({ module: "auth" });
  const link = (path: string, locale: unknown, query: Record<string, string>) =>
    `${site.url}${localizePath(path, localeOf(locale))}?${new URLSearchParams(query).toString()}`;
  const oidc = oidcConfig(env);

  return betterAuth({
    appName: site.name,
    baseURL: site.url,
    basePath: "/api/auth",
    secret,
    database: drizzleAdapter(db, {
      provider: "pg",
      schema: {
        user: schema.user,
        session: schema.session,
        account: schema.account,
        verification: schema.verification,
      },
    }),
    telemetry: { enabled: false },
    logger: {
      level: "warn",
      log: (level, message, ...args) =>
        authLogger[level === "debug" ? "debug" : level === "info" ? "info" : level === "warn" ? "warn" : "error"](
          { details: args.length ? args.map((a) => (a instanceof Error ? a.message : a)) : undefined },
          message,
        ),
    },
    emailAndPassword: {
      enabled: true,
      requireEmailVerification: true,
      autoSignIn: false,
      minPasswordLength: PASSWORD_MIN,
      maxPasswordLength: PASSWORD_MAX,
      revokeSessionsOnPasswordReset: true,
      resetPasswordTokenExpiresIn: RESET_TOKEN_SECONDS,
      async sendResetPassword({ user, token }) {
        const locale = (user as { locale?: string }).locale;
        await queueMail({
          boss,
          mail: {
            to: user.email,
            kind: "resetPassword",
            locale: locale ?? null,
            name: user.name,
            url: link("/auth/update-password", locale, { token }),
          },
        });
      },
      async onPasswordReset({ user }) {
        const locale = (user as { locale?: string }).locale;
        await queueMail({
          boss,
          mail: {
            to: user.email,
            kind: "passwordChanged",
            locale: locale ?? null,
            name: user.name,
            url: link("/auth/update-password", locale, {}).replace(/\?$/, ""),
          },
        });
      },
      // Signing up with a taken address answers like a fresh sign-up; the owner hears about it by e-mail.
      async onExistingUserSignUp({ user }) {
        const locale = (user as { locale?: string }).locale;
        await queueMail({
          boss,
          mail: {
            to: user.email,
            kind: "existingAccount",
            locale: locale ?? null,
            name: user.name,
            url: link("/auth/login", locale, {}).replace(/\?$/, ""),
          },
        });
      },
    },
    emailVerification: {
      sendOnSignUp: true,
      sendOnSignIn: false,
      autoSignInAfterVerification: true,
      expiresIn: VERIFY_TOKEN_SECONDS,
      async sendVerificationEmail({ user, token, url }) {
        const locale = (user as { locale?: string }).locale;
        // Where the person was going when they signed up; the callback page checks it again before using it.
        const next = new URL(url).searchParams.get("callbackURL");
        await queueMail({
          boss,
          mail: {
            to: user.email,
            kind: "verifyEmail",
            locale: locale ?? null,
            name: user.name,
            url: link("/auth/callback", locale, next && next !== "/" ? { verify: token, next } : { verify: token }),
          },
        });
      },
    },
    user: {
      additionalFields: {
        locale: { type: "string", required: false, input: true },
      },
    },
    session: {
      expiresIn: SESSION_DAYS * 24 * 60 * 60,
      updateAge: SESSION_REFRESH_SECONDS,
    },
    account: {
      accountLinking: { enabled: true, trustedProviders: ["github", "google"] },
    },
    socialProviders: {
      ...(env.GITHUB_CLIENT_ID && env.GITHUB_CLIENT_SECRET
        ? { github: { clientId: env.GITHUB_CLIENT_ID, clientSecret: env.GITHUB_CLIENT_SECRET } }
        : {}),
      ...(env.GOOGLE_CLIENT_ID && env.GOOGLE_CLIENT_SECRET
        ? {
            google: {
              clientId: env.GOOGLE_CLIENT_ID,
              clientSecret: env.GOOGLE_CLIENT_SECRET,
              prompt: "select_account" as const,
            },
          }
        : {}),
    },
    plugins: [admin({ defaultRole: "user", adminRoles: ["admin"] }), genericOAuth({ config: oidc ? [oidc] : [] })],
    rateLimit: {
      enabled: true,
      window: RATE_LIMITS.authHttpPerIp.window,
      max: RATE_LIMITS.authHttpPerIp.max,
      customStorage: {
        consume: (key, rule) =>
          consumeRateLimit({ db, key: `auth-http:${key}`, rule }).then((r) => ({
            allowed: r.allowed,
            retryAfter: r.allowed ? null : r.retryAfter,
          })),
      },
    },
    advanced: {
      cookiePrefix: COOKIE_PREFIX,
      useSecureCookies: site.url.startsWith("https://"),
      defaultCookieAttributes: { sameSite: "lax", httpOnly: true },
      ipAddress: { ipAddressHeaders: [CLIENT_IP_HEADER] },
      // E-mails are queued; a failure to queue one is logged, never shown as a different answer.
      backgroundTasks: {
        handler: (promise) =>
          void promise.catch((error: Error) => authLogger.error({ err: error.message }, "background task failed")),
      },
    },
    databaseHooks: {
      session: {
        create: {
          after: async (session) => {
            // A session only starts for a confirmed address (or one an OAuth provider vouches for).
            await grantSignupBonus({
              db,
              userId: session.userId,
              amount: settings.current().signupBonusCredits,
              expiryDays: settings.current().billing.bonusExpiryDays,
            }).catch((error) =>
              authLogger.error({ err: (error as Error).message, userId: session.userId }, "sign-up bonus not granted"),
            );
            await promoteConfiguredAdmin({
              db,
              userId: session.userId,
              adminEmails: env.ADMIN_EMAILS,
              logger: authLogger,
            });
          },
        },
      },
    },
    onAPIError: {
      errorURL: `${site.url}/auth/login`,
    },
  });
}

export type Auth = ReturnType<typeof createAuth>;
