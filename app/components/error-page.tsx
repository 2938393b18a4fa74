import { useTranslation } from "react-i18next";
import { useLocation } from "react-router";
import { hrefIn } from "#common/locales.ts";
import { Button } from "#app/components/ui/button.tsx";
import { Result } from "#app/components/ui/result.tsx";

const SUBTITLE_KEYS: Record<number, string> = {
  400: "error.400subtitle",
  401: "error.401",
  403: "error.403",
  404: "error.404",
  500: "error.500",
};

/**
 * The full-screen error page that replaces the whole app: the status code as title, a status-specific subtitle,
 * the error's own message, Back to Home, Retry for server errors and sign-in for an expired session.
 */
export function ErrorPage({ status, messageKey }: { status: number; messageKey?: string }) {
  const { t } = useTranslation();
  const { pathname, search } = useLocation();
  const illustration = status === 404 ? "404" : status === 403 ? "403" : "error";
  const subtitle = t(SUBTITLE_KEYS[status] ?? "error.unknown");
  // The error's own message when it has one; 400 has a text beside its subtitle. Every other status already
  // says what happened in its subtitle, which is the unknown-error text for statuses without one.
  // A message that only repeats the subtitle is said once.
  const own = messageKey ? t(messageKey) : status === 400 ? t("error.400") : undefined;
  const message = own === subtitle ? undefined : own;
  const signIn = `${hrefIn(pathname, "/auth/login")}?redirect=${encodeURIComponent(pathname + search)}`;
  return (
    <div className="error-page" data-status={status}>
      <title>{t("error.metaTitle", { status })}</title>
      <Result
        status={illustration}
        title={status}
        subTitle={subtitle}
        extra={[
          status === 401 && (
            <Button key="sign-in" type="primary" href={signIn} reloadDocument>
              {t("action.signIn")}
            </Button>
          ),
          <Button key="home" type={status === 401 ? "default" : "primary"} href="/" reloadDocument>
            {t("action.backHome")}
          </Button>,
          status >= 500 && (
            <Button key="retry" onClick={() => window.location.reload()}>
              {t("action.retry")}
            </Button>
          ),
        ].filter(Boolean)}
      >
        {message && <p className="error-page-message">{message}</p>}
      </Result>
    </div>
  );
}
