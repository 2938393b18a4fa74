import { useEffect } from "react";
import { Button } from "#app/components/ui/button.tsx";
import { showNotice } from "#app/components/ui/toast.tsx";
import { useTranslation } from "react-i18next";
import {
  APP_VERSION_KEY,
  VERSION_CHECK_INTERVAL_MS,
  isChunkLoadError,
  shouldReloadForChunk,
  updateVerdict,
} from "./policy.ts";

export const UPDATE_NOTICE_KEY = "app-update";

/**
 * One persistent bottom-right notice offering a reload when a new version is out: the service worker says a new
 * one is installed, or the hourly look at `/build.json` finds another build or a newer version. Only one notice
 * at a time; a failed check is logged and silent. Also reloads once when a script chunk has gone missing.
 */
export function UpdateNotice({ build, siteName }: { build: { id: string; timestamp: number }; siteName: string }) {
  const { t } = useTranslation();

  useEffect(() => {
    // A development server has no builds to compare.
    if (build.id === "dev") return;
    let shown = false;
    const show = () => {
      if (shown) return;
      shown = true;
      showNotice({
        key: UPDATE_NOTICE_KEY,
        title: t("msg.newVersion"),
        description: t("msg.newVersionDescription", { site: siteName }),
        actions: (
          <Button type="primary" size="small" onClick={() => window.location.reload()}>
            {t("msg.refreshNow")}
          </Button>
        ),
        className: "update-notice",
      });
    };

    // The version this browser runs is the baseline for the hourly comparison.
    const stored = Number(localStorage.getItem(APP_VERSION_KEY));
    if (!Number.isFinite(stored) || stored < build.timestamp) {
      localStorage.setItem(APP_VERSION_KEY, String(build.timestamp));
    }

    const check = async () => {
      try {
        const res = await fetch(`/build.json?t=${Date.now()}`, { cache: "no-store" });
        if (!res.ok) throw new Error(`build.json answered ${res.status}`);
        const verdict = updateVerdict(await res.json(), build.id, Number(localStorage.getItem(APP_VERSION_KEY)) || 0);
        if (verdict !== "none") show();
      } catch (error) {
        console.warn("Version check failed", error);
      }
    };
    const timer = window.setInterval(() => void check(), VERSION_CHECK_INTERVAL_MS);

    const onMessage = (event: MessageEvent) => {
      const data = event.data as { type?: unknown; build?: unknown } | null;
      // The worker of this very build announcing itself is not news.
      if (data?.type === "UPDATE_AVAILABLE" && data.build !== build.id) show();
    };
    const workers = "serviceWorker" in navigator ? navigator.serviceWorker : undefined;
    workers?.addEventListener("message", onMessage);
    workers?.register("/sw.js", { scope: "/" }).catch((error: unknown) => {
      console.warn("Service worker registration failed", error);
    });

    // A chunk that cannot be fetched after a deploy: reload once per path, then let the error page show.
    const onPreloadError = (event: Event & { payload?: unknown }) => {
      if (!isChunkLoadError(event.payload)) return;
      if (shouldReloadForChunk(sessionStorage, window.location.pathname, Date.now())) {
        event.preventDefault();
        window.location.reload();
      }
    };
    window.addEventListener("vite:preloadError", onPreloadError);

    return () => {
      window.clearInterval(timer);
      workers?.removeEventListener("message", onMessage);
      window.removeEventListener("vite:preloadError", onPreloadError);
    };
  }, [build.id, build.timestamp, siteName, t]);

  return null;
}
