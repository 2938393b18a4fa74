import { useEffect, useRef } from "react";
import { createApiReference } from "virtual:scalar-api-reference";
import { DEFAULT_LOCALE, type Locale } from "#common/locales.ts";

/** Scalar's own interface speaks these of the site's languages; the others get its English. */
const SCALAR_LOCALES: Partial<Record<Locale, string>> = {
  de: "de",
  es: "es",
  fr: "fr",
  pt: "pt",
  ru: "ru",
  zh: "zh-cn",
};

/**
 * The interactive reference of the public API, drawn by Scalar from the served OpenAPI document in the reader's
 * language. Nothing leaves this site: no telemetry, no AI agent, no web fonts from elsewhere; requests tried from the
 * page go to this server. Scalar adds its own stylesheet to the page when it loads.
 */
export default function ScalarReference({ locale }: { locale: Locale }) {
  const mount = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!mount.current) return;
    // The site's colour scheme at the time it loads (the page sets it on <html> before anything renders)
    const dark = document.documentElement.dataset.theme === "dark";
    const reference = createApiReference(mount.current, {
      // The document in the reader's language (the plain address serves machines its English)
      url: locale === DEFAULT_LOCALE ? "/api/v1/openapi.json" : `/api/v1/openapi.json?lang=${locale}`,
      telemetry: false,
      withDefaultFonts: false,
      agent: { disabled: true },
      mcp: { disabled: true },
      // A small API: every operation is on the page at once, ready for the browser's own search
      defaultOpenAllTags: true,
      hideClientButton: true,
      showDeveloperTools: "never",
      hideDarkModeToggle: true,
      forceDarkModeState: dark ? "dark" : "light",
      documentDownloadType: "json",
      // The operations show their schemas; a separate "Models" section would read like the AI models
      hideModels: true,
      authentication: { preferredSecurityScheme: "bearer" },
      defaultHttpClient: { targetKey: "shell", clientKey: "curl" },
      localization: { locale: SCALAR_LOCALES[locale] ?? "en" },
    });
    return () => reference.destroy();
  }, [locale]);
  return (
    <div className="scalar-reference">
      <div ref={mount} />
    </div>
  );
}
