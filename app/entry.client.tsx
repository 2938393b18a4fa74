import { startTransition, StrictMode } from "react";
import { hydrateRoot } from "react-dom/client";
import { HydratedRouter } from "react-router/dom";
import { loadAntdLocale, usesAntd } from "#app/i18n/antd.ts";
import { localeOfPath } from "#common/locales.ts";
import { rememberTypedFields } from "#app/lib/typed-before-hydration.ts";

// A page built with Ant Design needs its texts in the page's language before hydration, as they were on the server.
if (usesAntd(window.location.pathname)) await loadAntdLocale(localeOfPath(window.location.pathname));

rememberTypedFields();
startTransition(() => {
  hydrateRoot(
    document,
    <StrictMode>
      <HydratedRouter />
    </StrictMode>,
  );
});
