import { Button, Dropdown } from "antd";
import { GlobalOutlined } from "@ant-design/icons";
import { useTranslation } from "react-i18next";
import { useLocation, useNavigate } from "react-router";
import { preferenceCookie } from "#common/cookies.ts";
import {
  LOCALES,
  LOCALE_COOKIE,
  LOCALE_COOKIE_MAX_AGE_SECONDS,
  LOCALE_NAMES,
  localeOfPath,
  localizePath,
  type Locale,
} from "#common/locales.ts";

let pendingToast = false;

/** True once after a language switch: the page in the new language shows the confirmation in that language. */
export function takePendingLanguageToast(): boolean {
  const pending = pendingToast;
  pendingToast = false;
  return pending;
}

/** The ten languages by their own names; choosing one remembers it and opens the same page in that language. */
export function LanguageSwitcher({ compact = false }: { compact?: boolean }) {
  const { t } = useTranslation();
  const { pathname, search, hash } = useLocation();
  const navigate = useNavigate();
  const current = localeOfPath(pathname);

  const choose = (locale: Locale) => {
    document.cookie = preferenceCookie(LOCALE_COOKIE, locale, LOCALE_COOKIE_MAX_AGE_SECONDS);
    pendingToast = true;
    void navigate(`${localizePath(pathname, locale)}${search}${hash}`);
  };

  return (
    <Dropdown
      trigger={["click"]}
      menu={{
        selectable: true,
        selectedKeys: [current],
        items: LOCALES.map((locale) => ({
          key: locale,
          label: <span lang={locale}>{LOCALE_NAMES[locale]}</span>,
        })),
        onClick: ({ key }) => choose(key as Locale),
      }}
    >
      <Button
        type="text"
        icon={<GlobalOutlined />}
        // The visible language name is part of the button's name, as speech input expects.
        aria-label={compact ? t("language.label") : `${t("language.label")} ${LOCALE_NAMES[current]}`}
        data-testid="language-switcher"
      >
        {compact ? null : LOCALE_NAMES[current]}
      </Button>
    </Dropdown>
  );
}
