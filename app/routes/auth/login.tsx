import { useTranslation } from "react-i18next";
import { Form, Link, redirect, useLocation, useNavigation, data } from "react-router";
import type { Route } from "./+types/login";
import { pageMeta } from "#app/lib/page.server.ts";
import { seoMeta } from "#app/seo.ts";
import { AuthCard } from "#app/components/auth/auth-card.tsx";
import { Field } from "#app/components/auth/fields.tsx";
import { OAuthButtons } from "#app/components/auth/oauth-buttons.tsx";
import { Turnstile } from "#app/components/auth/turnstile.tsx";
import { useFormErrors } from "#app/components/auth/use-form-errors.ts";
import { Button } from "#app/components/ui/button.tsx";
import { Alert } from "#app/components/ui/display.tsx";
import { Paragraph } from "#app/components/ui/typography.tsx";
import { useRoot } from "#app/lib/use-site.ts";
import { afterSignIn, authAttemptOf, botCheckPassed, cookiesOf, retryLater, tooMany } from "#app/lib/auth.server.ts";
import { serverContextOf, formOf } from "#app/lib/request.server.ts";
import { answerFloor } from "#server/modules/auth/attempts.ts";
import { resendVerification } from "#server/modules/auth/resend-verification.ts";
import { signIn } from "#server/modules/auth/sign-in.ts";
import { flashCookie, localeCookie } from "#server/http/cookies.ts";
import { oauthProviders } from "#server/modules/auth/auth.ts";
import { emailOnlySchema, fieldErrors, signInSchema, type FieldErrors } from "#common/auth-schema.ts";
import { safeReturnPath } from "#common/return-path.ts";
import { hrefIn } from "#common/locales.ts";

export const meta = ({ loaderData }: Route.MetaArgs) => seoMeta(loaderData?.seo);

// A refusal for too many attempts says when to come back.
export const headers: Route.HeadersFunction = ({ parentHeaders, actionHeaders }) => {
  const out = new Headers(parentHeaders);
  const retryAfter = actionHeaders.get("Retry-After");
  if (retryAfter) out.set("Retry-After", retryAfter);
  return out;
};

export function loader({ context, request }: Route.LoaderArgs) {
  const { runtime, session } = serverContextOf(context);
  const url = new URL(request.url);
  const returnTo = safeReturnPath(url.searchParams.get("redirect"));
  // Already signed in: nothing to do here.
  if (session.viewer) throw redirect(afterSignIn(returnTo, null, request).to);
  const { i18n, seo } = pageMeta(context, request, ["auth"], (t, site) => ({
    title: t("auth:login.title"),
    description: t("auth:login.metaDescription", { site: site.name }),
    noindex: true,
  }));
  const reason = url.searchParams.get("reason");
  return {
    seo,
    i18n,
    returnTo,
    notice: reason === "expired" ? ("notice.sessionExpired" as const) : null,
    oauthError: url.searchParams.has("error"),
    providers: oauthProviders(runtime.env),
  };
}

type ActionResult =
  | {
      formError: string;
      minutes?: number;
      fields?: FieldErrors;
      email?: string;
      unverified?: boolean;
      /** Sign-ins to this account from this browser are paused: say how to get in now. */
      locked?: boolean;
    }
  | { resent: true };

export async function action({ context, request }: Route.ActionArgs) {
  const started = Date.now();
  const attempt = authAttemptOf(context);
  const form = await formOf(request);
  const url = new URL(request.url);

  if (form.get("intent") === "resend") {
    const parsed = emailOnlySchema.safeParse({ email: form.get("email") });
    if (parsed.success) {
      const resent = await resendVerification({ ...attempt, email: parsed.data.email });
      if (!resent.ok) return data<ActionResult>(tooMany(resent), retryLater(resent));
    } else await answerFloor(started);
    return { resent: true } satisfies ActionResult;
  }

  const parsed = signInSchema.safeParse({ email: form.get("email"), password: form.get("password") });
  if (!parsed.success) return data<ActionResult>({ formError: "", fields: fieldErrors(parsed.error) }, { status: 400 });
  const { email, password } = parsed.data;
  if (!(await botCheckPassed(context, form)))
    return data<ActionResult>({ formError: "error.botCheck", email }, { status: 400 });
  const { runtime } = serverContextOf(context);
  const result = await signIn({ ...attempt, email, password, boss: runtime.boss, siteUrl: runtime.site.url });
  if (result.ok) {
    const target = afterSignIn(
      form.get("redirect") ?? url.searchParams.get("redirect"),
      result.preferredLocale,
      request,
    );
    const out = cookiesOf(result.cookies);
    out.append("Set-Cookie", flashCookie("loginSuccess"));
    out.append("Set-Cookie", localeCookie(target.locale));
    return redirect(target.to, { headers: out });
  }
  switch (result.reason) {
    case "rate_limited":
      return data<ActionResult>({ ...tooMany(result), email }, retryLater(result));
    case "locked":
      return data<ActionResult>(
        { formError: "locked.title", minutes: result.minutes, email, locked: true },
        retryLater(result),
      );
    case "email_not_verified":
      return data<ActionResult>({ formError: "error.emailNotVerified", email, unverified: true }, { status: 403 });
    case "banned":
      return data<ActionResult>({ formError: "error.banned", email }, { status: 403 });
    case "invalid_credentials":
      return data<ActionResult>({ formError: "error.invalidCredentials", email }, { status: 401 });
    case "failed":
      return data<ActionResult>({ formError: "error.generic", email }, { status: 500 });
  }
}

export default function Login({ loaderData, actionData }: Route.ComponentProps) {
  const { t } = useTranslation("auth");
  const { pathname } = useLocation();
  const navigation = useNavigation();
  const busy = navigation.state === "submitting" && navigation.formData?.get("intent") !== "resend";
  const resending = navigation.state === "submitting" && navigation.formData?.get("intent") === "resend";
  const result = actionData as ActionResult | undefined;
  const failure = result && "formError" in result ? result : undefined;
  const { errors, handlers } = useFormErrors("signInSchema", failure?.fields);
  const { site } = useRoot();
  const withReturn = (to: string) =>
    `${hrefIn(pathname, to)}?${new URLSearchParams({ redirect: loaderData.returnTo }).toString()}`;

  return (
    <AuthCard title={t("login.title")} subtitle={t("login.subtitle")}>
      {loaderData.notice && <Alert className="auth-alert" type="warning" title={t(loaderData.notice)} />}
      {loaderData.oauthError && !failure && (
        <Alert className="auth-alert" type="error" title={t("error.oauthFailed")} />
      )}
      {failure?.formError && (
        <Alert
          className="auth-alert"
          type="error"
          title={t(failure.formError, { minutes: failure.minutes, support: site.supportEmail })}
          description={
            failure.locked ? (
              <>
                {t("locked.body", { minutes: failure.minutes })}{" "}
                <Link to={hrefIn(pathname, "/auth/update-password")}>{t("locked.reset")}</Link>
              </>
            ) : undefined
          }
        />
      )}
      {result && "resent" in result && <Alert className="auth-alert" type="success" title={t("verify.resent")} />}
      <OAuthButtons providers={loaderData.providers} returnTo={loaderData.returnTo} />
      <Form method="post" noValidate {...handlers} className="auth-form">
        <input type="hidden" name="redirect" value={loaderData.returnTo} />
        <Field
          name="email"
          type="email"
          label={t("field.email")}
          autoComplete="email"
          errors={errors}
          defaultValue={failure?.email}
          autoFocus
        />
        <Field
          name="password"
          type="password"
          label={t("field.password")}
          autoComplete="current-password"
          errors={errors}
        />
        <div className="auth-row">
          <Link to={hrefIn(pathname, "/auth/update-password")}>{t("login.forgot")}</Link>
        </div>
        <Turnstile />
        <Button type="primary" htmlType="submit" size="large" block loading={busy} name="intent" value="signin">
          {t("login.submit")}
        </Button>
      </Form>
      {failure?.unverified && (
        <Form method="post" className="auth-resend">
          <input type="hidden" name="intent" value="resend" />
          <input type="hidden" name="email" value={failure.email} />
          <Button htmlType="submit" block loading={resending}>
            {t("verify.resend")}
          </Button>
        </Form>
      )}
      <Paragraph className="auth-switch">
        {t("login.noAccount", { site: site.name })}{" "}
        <Link to={withReturn("/auth/register")}>{t("login.createAccount")}</Link>
      </Paragraph>
    </AuthCard>
  );
}
