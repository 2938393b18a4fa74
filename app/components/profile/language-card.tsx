import { Card, Select, Typography } from "antd";
import { useTranslation } from "react-i18next";
import { useFetcher } from "react-router";
import { LOCALES, LOCALE_NAMES, isLocale, type Locale } from "#common/locales.ts";
import { useResultToast, type ProfileResult } from "./result.ts";

/** The language of the account's pages and e-mails; choosing one moves the page to it. */
export function LanguageCard({ account, locale }: { account: { locale: string | null }; locale: Locale }) {
  const { t } = useTranslation("user");
  const localeFetcher = useFetcher<ProfileResult>();
  useResultToast(localeFetcher.data);
  return (
    <Card title={t("profile.language")} className="profile-card">
      <Typography.Paragraph type="secondary">{t("profile.languageHint")}</Typography.Paragraph>
      <Select<Locale>
        className="profile-language"
        aria-label={t("profile.language")}
        value={isLocale(account.locale) ? account.locale : locale}
        loading={localeFetcher.state !== "idle"}
        options={LOCALES.map((l) => ({ value: l, label: <span lang={l}>{LOCALE_NAMES[l]}</span> }))}
        onChange={(value) => void localeFetcher.submit({ intent: "locale", locale: value }, { method: "post" })}
      />
    </Card>
  );
}
