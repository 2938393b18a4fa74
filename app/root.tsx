import { useContext, useEffect, useMemo, type ReactNode } from "react";
import {
  Links,
  Meta,
  Outlet,
  Scripts,
  ScrollRestoration,
  isRouteErrorResponse,
  useMatches,
  useRouteLoaderData,
  type ShouldRevalidateFunctionArgs,
} from "react-router";
import { I18nextProvider, useTranslation } from "react-i18next";
import type { i18n as I18n, Resource } from "i18next";
import type { Route } from "./+types/root";
import stylesheet from "./app.css?url";
import antdStylesheet from "virtual:antd-stylesheet";
import { requestInfoContext } from "#app/context.ts";
import { serverContext } from "#app/server-context.server.ts";
import { getBalance } from "#server/modules/credits/ledger.ts";
import { nextExpiry } from "#server/modules/credits/expire-credits.ts";
import { FlashToast } from "#app/components/flash-toast.tsx";
import { SiteNotice, type SiteNoticeData } from "#app/components/site-notice.tsx";
import { FLASH_COOKIE, parseFlash } from "#common/flash.ts";
import { createI18n, rememberTranslations } from "#common/i18n.ts";
import { resourcesFor } from "#server/i18n/translations.ts";
import { LANGUAGE_ICONS, takePendingLanguageToast } from "#app/components/layout/language-switcher.tsx";
import { THEME_ICONS } from "#app/components/layout/theme-switch.tsx";
import { IconSprite } from "#app/components/ui/icon.tsx";
import { ThemeProvider } from "#app/components/preferences.tsx";
import { LoadingBar } from "#app/components/loading-bar.tsx";
import { ErrorPage } from "#app/components/error-page.tsx";
import { ThirdPartyTags } from "#app/components/third-party.tsx";
import { NonceContext } from "#app/components/nonce.ts";
import { UpdateNotice } from "#app/updates/update-notice.tsx";
import { isChunkLoadError, shouldReloadForChunk } from "#app/updates/policy.ts";
import { useToast } from "#app/components/feedback.ts";
import { Toaster } from "#app/components/ui/toast.tsx";
import { ANTD_CSS_VAR_KEY } from "#app/components/theme.ts";
import { readCookie } from "#common/cookies.ts";
import { DEFAULT_LOCALE, LOCALE_TAGS, localeOfPath, stripLocale, type Locale } from "#common/locales.ts";
import { COLOR_SCHEME_HINT, THEME_COOKIE, isThemeMode, resolveScheme } from "#common/theme.ts";
import { HEAD_SCRIPT } from "#common/early-input.ts";
import { takeOverEarlyInput } from "#app/lib/typed-before-hydration.ts";
import { siteDefaults } from "#config/site.ts";

// Ant Design's rules come after the site's, as they did when they were written into the page while rendering.
export const links: Route.LinksFunction = () => [
  { rel: "stylesheet", href: stylesheet },
  { rel: "stylesheet", href: antdStylesheet },
  { rel: "icon", href: "/favicon.svg", type: "image/svg+xml" },
];

export async function loader({ context, request }: Route.LoaderArgs) {
  const { site, build, themeStylesheet } = context.get(requestInfoContext);
  const locale = localeOfPath(new URL(request.url).pathname);
  const cookies = request.headers.get("cookie");
  const storedMode = readCookie(cookies, THEME_COOKIE);
  const themeMode = isThemeMode(storedMode) ? storedMode : "system";
  const scheme = resolveScheme(themeMode, request.headers.get(COLOR_SCHEME_HINT));
  const { session, runtime } = context.get(serverContext);
  const flash = parseFlash(readCookie(cookies, FLASH_COOKIE));
  // The balance shown in both headers; the root revalidates after every form, so it follows every change.
  const [balance, expiring] = session.viewer
    ? await Promise.all([
        getBalance({ db: runtime.database.db, userId: session.viewer.id }),
        nextExpiry({ db: runtime.database.db, userId: session.viewer.id }),
      ])
    : [null, null];
  const credits = balance?.available ?? null;
  const { announcement, maintenance } = runtime.settings.current();
  const announced = announcement.enabled ? announcement.text[locale] || announcement.text.en : undefined;
  const notice: SiteNoticeData = {
    announcement: announced ? { tone: announcement.tone, text: announced } : null,
    maintenance: maintenance.enabled,
  };
  return {
    locale,
    site,
    build,
    themeStylesheet,
    themeMode,
    scheme,
    viewer: session.viewer,
    credits,
    /** The credits that expire first, and when: said beside the balance. */
    expiring,
    notice,
    flash,
    resources: resourcesFor(locale, ["common"]),
  };
}

// What the root loads changes with the language, with a form that signs in or out or edits the profile, and on the
// way to the account pages: a page sent there because its session ended must not keep showing who was signed in.
export function shouldRevalidate({ currentUrl, nextUrl, formMethod }: ShouldRevalidateFunctionArgs) {
  if (formMethod && formMethod !== "GET") return true;
  if (stripLocale(nextUrl.pathname).startsWith("/auth/")) return true;
  return localeOfPath(currentUrl.pathname) !== localeOfPath(nextUrl.pathname);
}

// Ask Chromium for the system colour scheme so that "follow the system" renders right from the server.
export const headers: Route.HeadersFunction = () => ({
  "Accept-CH": COLOR_SCHEME_HINT,
  Vary: COLOR_SCHEME_HINT,
});

/** Icons the header, drawer and footer each show: drawn once per page. */
const SHARED_ICONS = [...LANGUAGE_ICONS, ...THEME_ICONS];

export function Layout({ children }: { children: ReactNode }) {
  const data = useRouteLoaderData<typeof loader>("root");
  const locale = data?.locale ?? DEFAULT_LOCALE;
  const primary = data?.site.primaryColor ?? siteDefaults.primaryColor;
  const scheme = data?.scheme ?? "light";
  const nonce = useContext(NonceContext);
  return (
    // The theme script below may change data-theme before hydration (a system in dark mode the server could not see).
    <html
      lang={LOCALE_TAGS[locale]}
      data-theme={scheme}
      data-theme-mode={data?.themeMode ?? "system"}
      style={{ colorScheme: scheme }}
      suppressHydrationWarning
    >
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="theme-color" content={primary} />
        <script dangerouslySetInnerHTML={{ __html: HEAD_SCRIPT }} suppressHydrationWarning />
        <Meta />
        {/* Stylesheets need no nonce (style-src allows 'self'); the server's nonce would not survive the browser's
            nonce hiding and would make hydration see a different attribute than the client renders. */}
        <Links nonce="" />
        {/* The operator's primary colour when it is not the one the stylesheet was built with. */}
        {data?.themeStylesheet && <link rel="stylesheet" href={data.themeStylesheet} />}
        {data && <ThirdPartyTags ids={data.site.thirdParty} nonce={nonce} />}
      </head>
      <body style={{ ["--atelier-primary" as string]: primary }}>
        <IconSprite icons={SHARED_ICONS} />
        <ThemeProvider initialMode={data?.themeMode ?? "system"} initialScheme={scheme}>
          {/* Ant Design's base text styles for every page; the pages built with its components add its provider. */}
          <div className={`ant-app ${ANTD_CSS_VAR_KEY}`}>{children}</div>
        </ThemeProvider>
        <ScrollRestoration />
        <Scripts />
      </body>
    </html>
  );
}

/** Adds namespaces to an instance's translations, without i18next's deep copy of each bundle (they are only read). */
function addBundles(i18n: I18n, bundles: Resource[]) {
  for (const resources of bundles) {
    for (const [lng, namespaces] of Object.entries(resources)) {
      for (const [ns, bundle] of Object.entries(namespaces)) {
        if (!i18n.hasResourceBundle(lng, ns)) i18n.addResourceBundle(lng, ns, bundle, false, false, { skipCopy: true });
      }
    }
  }
}

/** What the server made for each language and set of namespaces a page renders with: a few dozen at most. */
const serverInstances = new Map<string, I18n>();

/**
 * The page's translations: the root's `common` and the namespaces each matched route sent with its data. In the
 * browser, one instance per language, which gains the namespaces of the pages visited. On the server, one per
 * language and set of namespaces, made once and shared by every request that renders with the same set: nothing
 * changes its language or resources afterwards (building one per request was about a twentieth of a page's time).
 */
function usePageI18n(locale: Locale, resources: Resource): I18n {
  const bundles = useMatches().flatMap((match) => {
    const bundle = (match.loaderData as { i18n?: Resource } | undefined)?.i18n;
    return bundle ? [bundle] : [];
  });
  const browser = useMemo(() => (import.meta.env.SSR ? null : createI18n(locale, resources)), [locale, resources]);
  if (browser) {
    addBundles(browser, bundles);
    return browser;
  }
  const key = [locale, ...bundles.flatMap((bundle) => Object.keys(Object.values(bundle)[0] ?? {}))].join("|");
  let instance = serverInstances.get(key);
  if (!instance) {
    instance = createI18n(locale, resources);
    addBundles(instance, bundles);
    rememberTranslations(instance);
    serverInstances.set(key, instance);
  }
  return instance;
}

function LanguageChangedToast() {
  const { t, i18n } = useTranslation();
  const toast = useToast();
  useEffect(() => {
    if (takePendingLanguageToast()) toast.success(t("language.changed"));
  }, [i18n, t, toast]);
  return null;
}

function RootToaster() {
  const { t } = useTranslation();
  return <Toaster closeLabel={t("action.close")} />;
}

export default function Root({ loaderData }: Route.ComponentProps) {
  const { locale, resources, build, site } = loaderData;
  // The whole page has hydrated (this effect runs after every other): what was typed, clicked or submitted before
  // is put back and replayed.
  useEffect(() => takeOverEarlyInput(), []);
  // Switching language swaps the instance, and every component re-renders with it.
  const i18n = usePageI18n(locale, resources);
  return (
    <I18nextProvider i18n={i18n}>
      <LoadingBar />
      <LanguageChangedToast />
      <FlashToast flash={loaderData.flash} />
      <UpdateNotice build={build} siteName={site.name} />
      <SiteNotice notice={loaderData.notice} />
      <Outlet />
      <RootToaster />
    </I18nextProvider>
  );
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  const data = useRouteLoaderData<typeof loader>("root");
  const locale = data?.locale ?? DEFAULT_LOCALE;
  const i18n = useMemo(() => createI18n(locale, data?.resources ?? {}), [locale, data?.resources]);
  const status = isRouteErrorResponse(error) ? error.status : 500;
  // A script chunk gone missing after a deploy: reload once for this path; a second time, the error page stays.
  useEffect(() => {
    if (isChunkLoadError(error) && shouldReloadForChunk(sessionStorage, window.location.pathname, Date.now())) {
      window.location.reload();
    }
  }, [error]);
  // Only messages the application chose to show; an unexpected error never shows its internals.
  const messageKey = !isRouteErrorResponse(error)
    ? "error.unknown"
    : typeof error.data === "object" && error.data && "messageKey" in error.data
      ? String(error.data.messageKey)
      : undefined;
  return (
    <I18nextProvider i18n={i18n}>
      {/* The whole app is replaced: the error page is the document's one main region. */}
      <main>
        <ErrorPage status={status} messageKey={messageKey} />
      </main>
    </I18nextProvider>
  );
}
