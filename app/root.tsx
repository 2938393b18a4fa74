import type { ReactNode } from "react";
import {
  Links,
  Meta,
  Outlet,
  Scripts,
  ScrollRestoration,
  isRouteErrorResponse,
  useRouteLoaderData,
} from "react-router";
import { App as AntApp, ConfigProvider, Result, Button } from "antd";
import { I18nextProvider, useTranslation } from "react-i18next";
import { useState } from "react";
import type { Route } from "./+types/root";
import stylesheet from "./app.css?url";
import { requestInfoContext } from "#app/context.ts";
import { createI18n } from "#app/i18n/i18n.ts";
import { resourcesFor } from "#app/i18n/resources.server.ts";
import { DEFAULT_LOCALE } from "#common/locales.ts";
import { siteDefaults } from "#config/site.ts";
import { messageConfig, notificationConfig, theme } from "#app/components/theme.ts";

export const links: Route.LinksFunction = () => [{ rel: "stylesheet", href: stylesheet }];

export function loader({ context }: Route.LoaderArgs) {
  const { site, build } = context.get(requestInfoContext);
  // Locale routing arrives with the language prefixes; until then every page renders in the default locale.
  const locale = DEFAULT_LOCALE;
  return { locale, site, build, resources: resourcesFor(locale, ["common"]) };
}

export function Layout({ children }: { children: ReactNode }) {
  const data = useRouteLoaderData<typeof loader>("root");
  const locale = data?.locale ?? DEFAULT_LOCALE;
  const primary = data?.site.primaryColor ?? siteDefaults.primaryColor;
  return (
    <html lang={locale}>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="theme-color" content={primary} />
        <link rel="icon" href="/favicon.svg" type="image/svg+xml" />
        <Meta />
        {/* Stylesheets need no nonce (style-src allows 'self'); the server's nonce would not survive the browser's
            nonce hiding and would make hydration see a different attribute than the client renders. */}
        <Links nonce="" />
      </head>
      <body style={{ ["--atelier-primary" as string]: primary }}>
        <ConfigProvider theme={theme(primary)}>
          <AntApp message={messageConfig} notification={notificationConfig}>
            {children}
          </AntApp>
        </ConfigProvider>
        <ScrollRestoration />
        <Scripts />
      </body>
    </html>
  );
}

export default function Root({ loaderData }: Route.ComponentProps) {
  const [i18n] = useState(() => createI18n(loaderData.locale, loaderData.resources));
  return (
    <I18nextProvider i18n={i18n}>
      <Outlet />
    </I18nextProvider>
  );
}

function ErrorText() {
  const { t } = useTranslation();
  return t("error.unknown");
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  const data = useRouteLoaderData<typeof loader>("root");
  const [i18n] = useState(() => createI18n(data?.locale ?? DEFAULT_LOCALE, data?.resources ?? {}));
  const status = isRouteErrorResponse(error) ? error.status : 500;
  return (
    <I18nextProvider i18n={i18n}>
      <Result
        status={status === 404 ? "404" : status === 403 ? "403" : "error"}
        title={status}
        subTitle={<ErrorText />}
        extra={
          <Button type="primary" href="/">
            {i18n.t("action.backHome")}
          </Button>
        }
      />
    </I18nextProvider>
  );
}
