import GlobalOutlined from "@ant-design/icons-svg/es/asn/GlobalOutlined";
import { useTranslation } from "react-i18next";
import { Link, useLocation } from "react-router";
import { Icon } from "#app/components/ui/icon.tsx";
import { MenuButton } from "#app/components/ui/overlay.tsx";
import { ANTD_CSS_VAR_KEY } from "#app/components/theme.ts";
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

/** Remembers the chosen language; the page in it will confirm the change. */
function remember(locale: Locale, current: Locale) {
  document.cookie = preferenceCookie(LOCALE_COOKIE, locale, LOCALE_COOKIE_MAX_AGE_SECONDS);
  if (locale !== current) pendingToast = true;
}

const TEXT_BUTTON = `ant-btn ${ANTD_CSS_VAR_KEY} ant-btn-text ant-btn-color-default ant-btn-variant-text`;

/**
 * The ten languages by their own names, as links to the same page in each: choosing one remembers it and, once the
 * page's scripts run, confirms it in the new language. Before they run, the links still lead there.
 */
export function LanguageSwitcher({ compact = false }: { compact?: boolean }) {
  const { t } = useTranslation();
  const { pathname, search, hash } = useLocation();
  const current = localeOfPath(pathname);

  return (
    <MenuButton
      testId="language-switcher"
      // The visible language name is part of the button's name, as speech input expects.
      label={compact ? t("language.label") : `${t("language.label")} ${LOCALE_NAMES[current]}`}
      triggerClassName={compact ? `${TEXT_BUTTON} ant-btn-icon-only` : TEXT_BUTTON}
      trigger={
        <>
          <span className="ant-btn-icon">
            <Icon icon={GlobalOutlined} />
          </span>
          {!compact && <span>{LOCALE_NAMES[current]}</span>}
        </>
      }
      items={LOCALES.map((locale) => ({
        key: locale,
        selected: locale === current,
        render: (closeMenu) => (
          <Link
            role="menuitem"
            lang={locale}
            hrefLang={locale}
            to={`${localizePath(pathname, locale)}${search}${hash}`}
            aria-current={locale === current ? "true" : undefined}
            onClick={() => {
              remember(locale, current);
              closeMenu();
            }}
          >
            {LOCALE_NAMES[locale]}
          </Link>
        ),
      }))}
    />
  );
}
