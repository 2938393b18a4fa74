import type { ReactNode } from "react";
import MenuOutlined from "@ant-design/icons-svg/es/asn/MenuOutlined";
import { useTranslation } from "react-i18next";
import { Link, NavLink, useLocation, useRouteLoaderData } from "react-router";
import type { loader as rootLoader } from "#app/root.tsx";
import { ANTD_CSS_VAR_KEY } from "#app/components/theme.ts";
import { Icon } from "#app/components/ui/icon.tsx";
import { buttonClassName } from "#app/components/ui/button.tsx";
import { BackToTop, Drawer, closeDrawer } from "#app/components/ui/overlay.tsx";
import { LanguageSwitcher } from "#app/components/layout/language-switcher.tsx";
import { ThemeSwitch } from "#app/components/layout/theme-switch.tsx";
import { CreditBalance, UserMenu } from "#app/components/layout/user-menu.tsx";
import { FOOTER_NAV, HEADER_NAV } from "#app/components/layout/nav.ts";
import { hrefIn, stripLocale } from "#common/locales.ts";

function Brand({ home, name }: { home: string; name: string }) {
  return (
    <Link to={home} className="brand">
      <img src="/favicon.svg" alt="" width={28} height={28} />
      <span>{name}</span>
    </Link>
  );
}

const DRAWER_ID = "site-drawer";
const layout = (part: string, className: string) => `ant-layout-${part} ${className} ${ANTD_CSS_VAR_KEY}`;

/**
 * Header, footer and the back-to-top button around every public page; a drawer replaces the nav on phones. Built
 * without Ant Design's scripts (its classes and stylesheet only), so public pages load little JavaScript.
 */
export function DefaultLayout({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  const site = useRouteLoaderData<typeof rootLoader>("root")!.site;
  const nav = HEADER_NAV.filter((item) => item.ready && (item.key !== "explore" || site.explore));
  const home = hrefIn(pathname, "/");
  const bare = stripLocale(pathname);
  const current = nav.find((item) => (item.to === "/" ? bare === "/" : bare.startsWith(item.to)))?.key;

  return (
    <div className={`ant-layout site ${ANTD_CSS_VAR_KEY}`}>
      <a className="skip-link" href="#content">
        {t("nav.skipToContent")}
      </a>
      <header className={layout("header", "site-header")}>
        <Brand home={home} name={site.name} />
        <nav className="site-nav" aria-label={t("nav.primary")}>
          {nav.map((item) => (
            <NavLink key={item.key} to={hrefIn(pathname, item.to)} end={item.to === "/"} className="site-nav-link">
              {t(`nav.${item.key}`)}
            </NavLink>
          ))}
        </nav>
        <div className="site-header-tools">
          <LanguageSwitcher />
          <CreditBalance />
          <UserMenu />
          <button
            type="button"
            className={buttonClassName({ type: "text", iconOnly: true, className: "site-menu-button" })}
            aria-label={t("nav.menu")}
            aria-haspopup="dialog"
            popoverTarget={DRAWER_ID}
          >
            <span className="ant-btn-icon">
              <Icon icon={MenuOutlined} />
            </span>
          </button>
        </div>
      </header>
      <Drawer id={DRAWER_ID} title={site.name} closeLabel={t("action.close")} width={300} className="site-drawer">
        <ul
          className={`ant-menu ant-menu-root ant-menu-vertical ant-menu-light ${ANTD_CSS_VAR_KEY} ant-menu-css-var`}
          aria-label={t("nav.primary")}
        >
          {nav.map((item) => (
            <li
              key={item.key}
              className={`ant-menu-item${item.key === current ? " ant-menu-item-selected" : ""} ant-menu-item-only-child`}
            >
              <span className="ant-menu-title-content">
                <Link
                  to={hrefIn(pathname, item.to)}
                  aria-current={item.key === current ? "page" : undefined}
                  onClick={() => closeDrawer(DRAWER_ID)}
                >
                  {t(`nav.${item.key}`)}
                </Link>
              </span>
            </li>
          ))}
        </ul>
        <div className="site-drawer-tools">
          <ThemeSwitch />
        </div>
      </Drawer>
      <main className={layout("content", "site-content")} id="content">
        {children}
      </main>
      <footer className={layout("footer", "site-footer")}>
        <div className="site-footer-main">
          <div>
            <Brand home={home} name={site.name} />
            <p className="site-footer-tagline">{t("site.tagline")}</p>
          </div>
          {FOOTER_NAV.map((column) => (
            <nav key={column.key} aria-labelledby={`footer-${column.key}`} className="site-footer-links">
              <p id={`footer-${column.key}`} className="site-footer-heading">
                {t(`footer.${column.key}`)}
              </p>
              <ul>
                {column.links.map((item) => (
                  <li key={item.key}>
                    <Link to={hrefIn(pathname, item.to)}>{t(`footer.${item.key}`)}</Link>
                  </li>
                ))}
              </ul>
            </nav>
          ))}
          <div className="site-footer-tools">
            <LanguageSwitcher />
            <ThemeSwitch />
          </div>
        </div>
        <p className="site-footer-copyright">
          {t("footer.copyright", { year: new Date().getFullYear(), site: site.name })}
        </p>
      </footer>
      <BackToTop label={t("nav.backToTop")} />
    </div>
  );
}
