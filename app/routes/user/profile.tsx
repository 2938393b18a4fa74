import { Typography } from "antd";
import { useTranslation } from "react-i18next";
import { data } from "react-router";
import type { Route } from "./+types/profile";
import { pageMeta } from "#app/lib/page.server.ts";
import { requireViewer } from "#app/lib/auth.server.ts";
import { serverContextOf, formOf } from "#app/lib/request.server.ts";
import { seoMeta } from "#app/seo.ts";
import type { ProfileResult } from "#app/components/profile/result.ts";
import { DetailsCard } from "#app/components/profile/details-card.tsx";
import { LanguageCard } from "#app/components/profile/language-card.tsx";
import { PublicProfileCard } from "#app/components/profile/public-profile-card.tsx";
import { PasswordCard } from "#app/components/profile/password-card.tsx";
import { SessionsCard } from "#app/components/profile/sessions-card.tsx";
import { DeleteAccountCard } from "#app/components/profile/delete-account-card.tsx";
import { getAccount } from "#server/modules/users/get-account.ts";
import { listSignInMethods } from "#server/modules/users/list-sign-in-methods.ts";
import { listSessions } from "#server/modules/users/list-sessions.ts";
import { profileIntents } from "./profile.server.ts";

export const meta = ({ loaderData }: Route.MetaArgs) => seoMeta(loaderData?.seo);

export async function loader({ context, request }: Route.LoaderArgs) {
  const { viewer, db } = requireViewer(context, request);
  const { session } = serverContextOf(context);
  const [account, methods, sessions] = await Promise.all([
    getAccount({ db, userId: viewer.id }),
    listSignInMethods({ db, userId: viewer.id }),
    listSessions({ db, userId: viewer.id }),
  ]);
  const { locale, i18n, seo } = pageMeta(context, request, ["user", "auth"], (t) => ({
    title: t("user:profile.title"),
    noindex: true,
  }));
  return {
    seo,
    i18n,
    locale,
    account,
    hasPassword: methods.includes("credential"),
    providers: methods.filter((m) => m !== "credential"),
    currentSessionId: session.sessionId,
    sessions: sessions.map((s) => ({ ...s, ipAddress: s.ipAddress ?? "" })),
  };
}

export async function action({ context, request }: Route.ActionArgs) {
  const guarded = requireViewer(context, request);
  const form = await formOf(request);
  const intent = String(form.get("intent") ?? "");
  const run = Object.hasOwn(profileIntents, intent) ? profileIntents[intent] : undefined;
  if (!run) return data<ProfileResult>({ error: "common:error.400" }, { status: 400 });
  return run({ ...guarded, context, request, form });
}

export default function Profile({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("user");
  const { account, locale, sessions, currentSessionId, hasPassword, providers } = loaderData;
  return (
    <div className="page-narrow profile">
      <Typography.Title level={1}>{t("profile.title")}</Typography.Title>
      <Typography.Paragraph type="secondary">{t("profile.subtitle")}</Typography.Paragraph>
      <DetailsCard account={account} locale={locale} />
      <PublicProfileCard account={account} />
      <LanguageCard account={account} locale={locale} />
      <PasswordCard hasPassword={hasPassword} providers={providers} />
      <SessionsCard sessions={sessions} currentSessionId={currentSessionId} locale={locale} />
      <DeleteAccountCard hasPassword={hasPassword} />
    </div>
  );
}
