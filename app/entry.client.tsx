import { startTransition, StrictMode } from "react";
import { hydrateRoot } from "react-dom/client";
import { HydratedRouter } from "react-router/dom";
import { loadAntdLocale } from "#app/i18n/antd.ts";
import { localeOfPath } from "#common/locales.ts";
import { rememberTypedFields } from "#app/lib/typed-before-hydration.ts";

// Ant Design's texts for this page's language must be there before hydration, as they were on the server.
await loadAntdLocale(localeOfPath(window.location.pathname));

rememberTypedFields();
startTransition(() => {
  hydrateRoot(
    document,
    <StrictMode>
      <HydratedRouter />
    </StrictMode>,
  );
});
