import { useEffect, useRef } from "react";
import { useTranslation } from "react-i18next";
import { useRouteLoaderData } from "react-router";
import type { loader as rootLoader } from "#app/root.tsx";
import { LOCALE_TAGS, isLocale } from "#common/locales.ts";

const SCRIPT = "https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit";

interface TurnstileApi {
  render(el: HTMLElement, options: { sitekey: string; language?: string; theme?: string }): string;
  remove(id: string): void;
}

let loading: Promise<TurnstileApi> | undefined;

// Loaded by our own (trusted) script: the CSP's 'strict-dynamic', or the host allowed for the bot check, lets it in.
function loadTurnstile(): Promise<TurnstileApi> {
  const w = window as unknown as { turnstile?: TurnstileApi };
  if (w.turnstile) return Promise.resolve(w.turnstile);
  loading ??= new Promise((resolve, reject) => {
    const script = document.createElement("script");
    script.src = SCRIPT;
    script.async = true;
    script.onload = () => (w.turnstile ? resolve(w.turnstile) : reject(new Error("turnstile missing")));
    script.onerror = () => {
      loading = undefined;
      reject(new Error("turnstile failed to load"));
    };
    document.head.appendChild(script);
  });
  return loading;
}

/**
 * The bot check, when a Turnstile site key is configured. The widget adds the `cf-turnstile-response` field to the
 * form it sits in; the action verifies it with Cloudflare.
 */
export function Turnstile() {
  const { t, i18n } = useTranslation("auth");
  const root = useRouteLoaderData<typeof rootLoader>("root");
  const siteKey = root?.site.thirdParty.turnstileSiteKey;
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!siteKey || !ref.current) return;
    let id: string | undefined;
    let api: TurnstileApi | undefined;
    let cancelled = false;
    loadTurnstile()
      .then((loaded) => {
        if (cancelled || !ref.current) return;
        api = loaded;
        // Turnstile names languages in lower case ("zh-cn", "pt-br").
        const language = isLocale(i18n.language) ? LOCALE_TAGS[i18n.language].toLowerCase() : "auto";
        id = loaded.render(ref.current, { sitekey: siteKey, language, theme: "auto" });
      })
      .catch(() => undefined);
    return () => {
      cancelled = true;
      if (api && id) api.remove(id);
    };
  }, [siteKey, i18n.language]);
  if (!siteKey) return null;
  return <div ref={ref} className="turnstile" aria-label={t("turnstile.label")} />;
}
