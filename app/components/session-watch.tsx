import { useEffect } from "react";
import { useTranslation } from "react-i18next";
import { useLocation, useNavigate } from "react-router";
import { useToast } from "#app/components/feedback.ts";
import { api, SESSION_LOST_EVENT, type SessionLoss } from "#app/lib/api.ts";
import { signInHref } from "#common/return-path.ts";

/** How often, at most, a page coming back into view asks whether its session still holds. */
const RECHECK_MS = 30_000;

/**
 * For signed-in pages: when an internal API call finds the session gone, says so (expired, or sign in first) and
 * goes to sign-in, which comes back here afterwards. The session is also checked when the tab comes back into view,
 * so a page left open past its session's end says so at once rather than on the next click.
 */
export function SessionWatch() {
  const { t } = useTranslation();
  const toast = useToast();
  const navigate = useNavigate();
  const location = useLocation();
  const here = `${location.pathname}${location.search}`;

  useEffect(() => {
    let leaving = false;
    const onLost = (event: Event) => {
      if (leaving) return;
      leaving = true;
      const reason = (event as CustomEvent<SessionLoss>).detail;
      // The sign-in page itself explains an expired session; for any other loss, a toast says why we are there.
      if (reason !== "expired") toast.warning(t("msg.loginFirst"));
      void navigate(signInHref(location.pathname, here, reason === "expired" ? "expired" : undefined));
    };
    window.addEventListener(SESSION_LOST_EVENT, onLost);
    return () => window.removeEventListener(SESSION_LOST_EVENT, onLost);
  }, [here, location.pathname, navigate, t, toast]);

  useEffect(() => {
    let last = 0;
    const check = () => {
      if (document.visibilityState !== "visible" || Date.now() - last < RECHECK_MS) return;
      last = Date.now();
      // A 401 is handled by the listener above; other failures (offline, a restart) are not a lost session.
      api("/me").catch(() => undefined);
    };
    document.addEventListener("visibilitychange", check);
    window.addEventListener("focus", check);
    return () => {
      document.removeEventListener("visibilitychange", check);
      window.removeEventListener("focus", check);
    };
  }, []);
  return null;
}
