import { useTranslation } from "react-i18next";
import { redirect, useLocation } from "react-router";
import type { Route } from "./+types/callback";
import { pageMeta } from "#app/lib/page.server.ts";
import { seoMeta } from "#app/seo.ts";
import { Button } from "#app/components/ui/button.tsx";
import { Result } from "#app/components/ui/result.tsx";
import { afterSignIn, cookiesOf } from "#app/lib/auth.server.ts";
import { verifyEmail } from "#server/modules/auth/verify-email.ts";
import { serverContextOf } from "#app/lib/request.server.ts";
import { flashCookie, localeCookie } from "#server/http/cookies.ts";
import { hrefIn } from "#common/locales.ts";

export const meta = ({ loaderData }: Route.MetaArgs) => seoMeta(loaderData?.seo);

/**
 * Where e-mail links and OAuth providers send people back: a verification link confirms the address and signs in;
 * an OAuth return already has its session. Either way the visit ends on the page the person was going to.
 */
export async function loader({ context, request }: Route.LoaderArgs) {
  const { runtime, session, authHeaders } = serverContextOf(context);
  const url = new URL(request.url);
  const next = url.searchParams.get("next");
  const token = url.searchParams.get("verify");

  if (token) {
    const verified = await verifyEmail({ auth: runtime.auth, headers: authHeaders, logger: runtime.logger, token });
    if (verified.ok) {
      const target = afterSignIn(next, verified.locale, request);
      const out = cookiesOf(verified.cookies);
      out.append("Set-Cookie", flashCookie("emailVerified"));
      out.append("Set-Cookie", localeCookie(target.locale));
      throw redirect(target.to, { headers: out });
    }
  } else if (session.viewer && !url.searchParams.has("error")) {
    const target = afterSignIn(next, session.viewer.locale, request);
    const out = new Headers();
    out.append("Set-Cookie", flashCookie("loginSuccess"));
    out.append("Set-Cookie", localeCookie(target.locale));
    throw redirect(target.to, { headers: out });
  }

  const { i18n, seo } = pageMeta(context, request, ["auth"], (t) => ({
    title: t("auth:callback.title"),
    noindex: true,
  }));
  return { seo, i18n, kind: token ? ("verify" as const) : ("oauth" as const) };
}

export default function Callback({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("auth");
  const { pathname } = useLocation();
  return (
    <div className="auth-page">
      <Result
        className="auth-card"
        status="warning"
        title={t("verify.failedTitle")}
        subTitle={t(loaderData.kind === "verify" ? "error.linkInvalid" : "error.oauthFailed")}
        extra={
          <Button type="primary" href={hrefIn(pathname, "/auth/login")}>
            {t("verify.backToSignIn")}
          </Button>
        }
      />
    </div>
  );
}
