import { useTranslation } from "react-i18next";
import { Form, Link, data, redirect, useLocation, useNavigation } from "react-router";
import type { Route } from "./+types/update-password";
import { pageMeta } from "#app/lib/page.server.ts";
import { seoMeta } from "#app/seo.ts";
import { AuthCard } from "#app/components/auth/auth-card.tsx";
import { Field, NewPasswordField } from "#app/components/auth/fields.tsx";
import { Turnstile } from "#app/components/auth/turnstile.tsx";
import { useFormErrors } from "#app/components/auth/use-form-errors.ts";
import { Button } from "#app/components/ui/button.tsx";
import { Alert } from "#app/components/ui/display.tsx";
import { Result } from "#app/components/ui/result.tsx";
import { authAttemptOf, botCheckPassed, cookiesOf, retryLater, tooMany } from "#app/lib/auth.server.ts";
import { changePassword } from "#server/modules/auth/change-password.ts";
import { requestPasswordReset } from "#server/modules/auth/request-password-reset.ts";
import { resetPassword } from "#server/modules/auth/reset-password.ts";
import { localizedPath, pathLocale, serverContextOf, formOf } from "#app/lib/request.server.ts";
import { flashCookie } from "#server/http/cookies.ts";
import {
  changePasswordSchema,
  emailOnlySchema,
  fieldErrors,
  newPasswordSchema,
  type FieldErrors,
} from "#common/auth-schema.ts";
import { hrefIn, isLocale, localizePath } from "#common/locales.ts";

export const meta = ({ loaderData }: Route.MetaArgs) => seoMeta(loaderData?.seo);

type Mode = "reset" | "change" | "request";

function modeOf(request: Request, signedIn: boolean): { mode: Mode; token: string | null } {
  const token = new URL(request.url).searchParams.get("token");
  if (token) return { mode: "reset", token };
  return { mode: signedIn ? "change" : "request", token: null };
}

/**
 * One page, three uses: with a reset link's token it sets a new password; signed in, it changes the password;
 * otherwise it sends a reset link.
 */
export function loader({ context, request }: Route.LoaderArgs) {
  const { session } = serverContextOf(context);
  const { mode } = modeOf(request, !!session.viewer);
  const titleKey =
    mode === "reset" ? "auth:reset.title" : mode === "change" ? "auth:change.title" : "auth:forgot.title";
  const { i18n, seo } = pageMeta(context, request, ["auth"], (t) => ({
    title: t(titleKey),
    noindex: true,
  }));
  return { seo, i18n, mode };
}

type ActionResult = { formError?: string; minutes?: number; fields?: FieldErrors; sent?: string; changed?: true };

export async function action({ context, request }: Route.ActionArgs) {
  const { runtime, session } = serverContextOf(context);
  const form = await formOf(request);
  const { mode, token } = modeOf(request, !!session.viewer);

  if (mode === "request") {
    const parsed = emailOnlySchema.safeParse({ email: form.get("email") });
    if (!parsed.success) return data<ActionResult>({ fields: fieldErrors(parsed.error) }, { status: 400 });
    if (!(await botCheckPassed(context, form)))
      return data<ActionResult>({ formError: "error.botCheck" }, { status: 400 });
    const { email } = parsed.data;
    const requested = await requestPasswordReset({ ...authAttemptOf(context), email });
    if (!requested.ok) return data<ActionResult>(tooMany(requested), retryLater(requested));
    return { sent: email } satisfies ActionResult;
  }

  if (mode === "reset") {
    const parsed = newPasswordSchema.safeParse({ password: form.get("password"), confirm: form.get("confirm") });
    if (!parsed.success) return data<ActionResult>({ fields: fieldErrors(parsed.error) }, { status: 400 });
    const reset = await resetPassword({
      ...authAttemptOf(context),
      token: token ?? "",
      password: parsed.data.password,
    });
    if (!reset.ok) return data<ActionResult>({ formError: "error.linkInvalid" }, { status: 400 });
    // Every session was revoked, this browser's included: sign in again with the new password (this browser is now
    // known to the account, so it can even while sign-ins from unknown browsers are paused).
    const out = cookiesOf(reset.cookies);
    out.append("Set-Cookie", flashCookie("passwordReset"));
    return redirect(localizedPath(request, "/auth/login"), { headers: out });
  }

  const viewer = session.viewer!;
  const parsed = changePasswordSchema.safeParse({
    current: form.get("current"),
    password: form.get("password"),
    confirm: form.get("confirm"),
  });
  if (!parsed.success) return data<ActionResult>({ fields: fieldErrors(parsed.error) }, { status: 400 });
  const changed = await changePassword({
    ...authAttemptOf(context),
    boss: runtime.boss,
    viewer,
    current: parsed.data.current,
    password: parsed.data.password,
    settingsUrl: `${runtime.site.url}${localizePath("/auth/update-password", viewer.locale && isLocale(viewer.locale) ? viewer.locale : pathLocale(request))}`,
  });
  if (changed.ok) return data<ActionResult>({ changed: true }, { headers: cookiesOf(changed.cookies) });
  switch (changed.reason) {
    case "rate_limited":
      return data<ActionResult>(tooMany(changed), retryLater(changed));
    case "wrong_password":
      return data<ActionResult>({ fields: { current: "error.wrongPassword" } }, { status: 400 });
    case "no_password":
      return data<ActionResult>({ formError: "error.generic" }, { status: 400 });
    case "failed":
      return data<ActionResult>({ formError: "error.generic" }, { status: 500 });
  }
}

export default function UpdatePassword({ loaderData, actionData }: Route.ComponentProps) {
  const { t } = useTranslation("auth");
  const { pathname } = useLocation();
  const navigation = useNavigation();
  const result = actionData as ActionResult | undefined;
  const { mode } = loaderData;
  const schema =
    mode === "request" ? "emailOnlySchema" : mode === "reset" ? "newPasswordSchema" : "changePasswordSchema";
  const { errors, handlers } = useFormErrors(schema, result?.fields);
  const busy = navigation.state === "submitting";
  const login = hrefIn(pathname, "/auth/login");

  if (result?.sent) {
    return (
      <div className="auth-page">
        <Result
          className="auth-card"
          status="success"
          title={t("forgot.title")}
          subTitle={t("forgot.sent", { email: result.sent })}
          extra={<Link to={login}>{t("forgot.back")}</Link>}
        />
      </div>
    );
  }

  const alert = result?.formError && (
    <Alert className="auth-alert" type="error" title={t(result.formError, { minutes: result.minutes })} />
  );

  if (mode === "request") {
    return (
      <AuthCard title={t("forgot.title")} subtitle={t("forgot.subtitle")}>
        {alert}
        <Form method="post" noValidate {...handlers} className="auth-form">
          <Field name="email" type="email" label={t("field.email")} autoComplete="email" errors={errors} autoFocus />
          <Turnstile />
          <Button type="primary" htmlType="submit" size="large" block loading={busy}>
            {t("forgot.submit")}
          </Button>
        </Form>
        <p className="auth-switch">
          <Link to={login}>{t("forgot.back")}</Link>
        </p>
      </AuthCard>
    );
  }

  const reset = mode === "reset";
  return (
    <AuthCard
      title={t(reset ? "reset.title" : "change.title")}
      subtitle={t(reset ? "reset.subtitle" : "change.subtitle")}
    >
      {alert}
      {result?.changed && <Alert className="auth-alert" type="success" title={t("change.done")} />}
      {reset && result?.formError === "error.linkInvalid" && (
        <p className="auth-switch">
          <Link to={hrefIn(pathname, "/auth/update-password")}>{t("forgot.submit")}</Link>
        </p>
      )}
      <Form method="post" noValidate {...handlers} className="auth-form" key={result?.changed ? "done" : "form"}>
        {!reset && (
          <Field
            name="current"
            type="password"
            label={t("field.currentPassword")}
            autoComplete="current-password"
            errors={errors}
          />
        )}
        <NewPasswordField errors={errors} label={t("field.newPassword")} />
        <Field
          name="confirm"
          type="password"
          label={t("field.confirmPassword")}
          autoComplete="new-password"
          errors={errors}
        />
        <Button type="primary" htmlType="submit" size="large" block loading={busy}>
          {t(reset ? "reset.submit" : "change.submit")}
        </Button>
      </Form>
    </AuthCard>
  );
}
