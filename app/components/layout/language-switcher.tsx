import GlobalOutlined from "@ant-design/icons-svg/es/asn/GlobalOutlined";
import { useTranslation } from "react-i18next";
import { Link, useLocation } from "react-router";
import { buttonClassName } from "#app/components/ui/button.tsx";
import { Icon } from "#app/components/ui/icon.tsx";
import { MenuButton } from "#app/components/ui/overlay.tsx";
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

/** Drawn from the page's icon sprite: the switcher appears twice on a page (header and drawer). */
export const LANGUAGE_ICONS = [GlobalOutlined];

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
      triggerClassName={buttonClassName({ type: "text", iconOnly: compact })}
      trigger={
        <>
          <span className="ant-btn-icon">
            <Icon icon={GlobalOutlined} shared />
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
