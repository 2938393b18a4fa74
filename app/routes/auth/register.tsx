import { useTranslation } from "react-i18next";
import { Form, Link, data, redirect, useLocation, useNavigation } from "react-router";
import type { Route } from "./+types/register";
import { pageMeta } from "#app/lib/page.server.ts";
import { withTags } from "#app/i18n/tags.tsx";
import { seoMeta } from "#app/seo.ts";
import { AuthCard } from "#app/components/auth/auth-card.tsx";
import { Field, NewPasswordField } from "#app/components/auth/fields.tsx";
import { OAuthButtons } from "#app/components/auth/oauth-buttons.tsx";
import { Turnstile } from "#app/components/auth/turnstile.tsx";
import { useFormErrors } from "#app/components/auth/use-form-errors.ts";
import { Button } from "#app/components/ui/button.tsx";
import { Alert } from "#app/components/ui/display.tsx";
import { Checkbox, FormItem } from "#app/components/ui/form.tsx";
import { Result } from "#app/components/ui/result.tsx";
import { Paragraph } from "#app/components/ui/typography.tsx";
import { afterSignIn, authAttemptOf, botCheckPassed, retryLater, tooMany } from "#app/lib/auth.server.ts";
import { signUp } from "#server/modules/auth/sign-up.ts";
import { pathLocale, serverContextOf, formOf } from "#app/lib/request.server.ts";
import { oauthProviders } from "#server/modules/auth/auth.ts";
import { fieldErrors, signUpSchema, type FieldErrors } from "#common/auth-schema.ts";
import { safeReturnPath } from "#common/return-path.ts";
import { hrefIn } from "#common/locales.ts";

export const meta = ({ loaderData }: Route.MetaArgs) => seoMeta(loaderData?.seo);

export function loader({ context, request }: Route.LoaderArgs) {
  const { runtime, session } = serverContextOf(context);
  const url = new URL(request.url);
  const returnTo = safeReturnPath(url.searchParams.get("redirect"));
  if (session.viewer) throw redirect(afterSignIn(returnTo, null, request).to);
  const { site, i18n, seo } = pageMeta(context, request, ["auth"], (t, site) => ({
    title: t("auth:register.title"),
    description: t("auth:register.metaDescription", { site: site.name }),
  }));
  return { seo, i18n, returnTo, providers: oauthProviders(runtime.env), bonus: site.signupBonusCredits };
}

type ActionResult =
  | { formError?: string; minutes?: number; fields?: FieldErrors; values?: { name: string; email: string } }
  | { sent: string };

export async function action({ context, request }: Route.ActionArgs) {
  const form = await formOf(request);
  const values = { name: String(form.get("name") ?? ""), email: String(form.get("email") ?? "") };
  const parsed = signUpSchema.safeParse({
    ...values,
    password: form.get("password"),
    terms: form.get("terms") ?? undefined,
  });
  if (!parsed.success) return data<ActionResult>({ fields: fieldErrors(parsed.error), values }, { status: 400 });
  if (!(await botCheckPassed(context, form)))
    return data<ActionResult>({ formError: "error.botCheck", values }, { status: 400 });
  const { name, email, password } = parsed.data;
  const result = await signUp({
    ...authAttemptOf(context),
    name,
    email,
    password,
    locale: pathLocale(request),
    returnTo: safeReturnPath(form.get("redirect")),
  });
  if (result.ok) return { sent: email } satisfies ActionResult;
  if (result.reason === "rate_limited") return data<ActionResult>({ ...tooMany(result), values }, retryLater(result));
  return data<ActionResult>({ formError: "error.generic", values }, { status: 500 });
}

export default function Register({ loaderData, actionData }: Route.ComponentProps) {
  const { t } = useTranslation("auth");
  const { pathname } = useLocation();
  const navigation = useNavigation();
  const result = actionData as ActionResult | undefined;
  const failure = result && !("sent" in result) ? result : undefined;
  const { errors, handlers } = useFormErrors("signUpSchema", failure?.fields);
  const loginHref = `${hrefIn(pathname, "/auth/login")}?${new URLSearchParams({ redirect: loaderData.returnTo }).toString()}`;

  if (result && "sent" in result) {
    return (
      <div className="auth-page">
        <Result
          className="auth-card"
          status="success"
          title={t("register.checkInboxTitle")}
          subTitle={t("register.checkInbox", { email: result.sent })}
          extra={<Link to={loginHref}>{t("verify.backToSignIn")}</Link>}
        />
      </div>
    );
  }

  const legal = (key: "terms" | "privacy") => <Link to={hrefIn(pathname, `/legal/${key}`)} target="_blank" />;

  return (
    <AuthCard title={t("register.title")} subtitle={t("register.subtitle", { credits: loaderData.bonus })}>
      {failure?.formError && (
        <Alert className="auth-alert" type="error" title={t(failure.formError, { minutes: failure.minutes })} />
      )}
      <OAuthButtons providers={loaderData.providers} returnTo={loaderData.returnTo} />
      <Form method="post" noValidate {...handlers} className="auth-form">
        <input type="hidden" name="redirect" value={loaderData.returnTo} />
        <Field
          name="name"
          label={t("field.name")}
          autoComplete="name"
          errors={errors}
          defaultValue={failure?.values?.name}
          autoFocus
        />
        <Field
          name="email"
          type="email"
          label={t("field.email")}
          autoComplete="email"
          errors={errors}
          defaultValue={failure?.values?.email}
        />
        <NewPasswordField errors={errors} label={t("field.password")} />
        <FormItem error={errors.terms ? t(errors.terms) : undefined}>
          <Checkbox name="terms" value="on" id="field-terms">
            {withTags(t("register.acceptTerms"), { terms: legal("terms"), privacy: legal("privacy") })}
          </Checkbox>
        </FormItem>
        <Turnstile />
        <Button type="primary" htmlType="submit" size="large" block loading={navigation.state === "submitting"}>
          {t("register.submit")}
        </Button>
      </Form>
      <Paragraph className="auth-switch">
        {t("register.haveAccount")} <Link to={loginHref}>{t("register.signIn")}</Link>
      </Paragraph>
    </AuthCard>
  );
}
