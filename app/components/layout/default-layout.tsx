import { useState, type ReactNode } from "react";
import { Button, Drawer, FloatButton, Layout, Menu } from "antd";
import { MenuOutlined } from "@ant-design/icons";
import { useTranslation } from "react-i18next";
import { Link, NavLink, useLocation, useRouteLoaderData } from "react-router";
import type { loader as rootLoader } from "#app/root.tsx";
import { BACK_TO_TOP } from "#app/components/theme.ts";
import { LanguageSwitcher } from "#app/components/layout/language-switcher.tsx";
import { ThemeSwitch } from "#app/components/layout/theme-switch.tsx";
import { CreditBalance, UserMenu } from "#app/components/layout/user-menu.tsx";
import { HEADER_NAV, LEGAL_NAV } from "#app/components/layout/nav.ts";
import { hrefIn, stripLocale } from "#common/locales.ts";

function Brand({ home, name }: { home: string; name: string }) {
  return (
    <Link to={home} className="brand">
      <img src="/favicon.svg" alt="" width={28} height={28} />
      <span>{name}</span>
    </Link>
  );
}

/** Header, footer and the back-to-top button around every public page; a drawer replaces the nav on phones. */
export function DefaultLayout({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  const site = useRouteLoaderData<typeof rootLoader>("root")!.site;
  const [drawerOpen, setDrawerOpen] = useState(false);
  const nav = HEADER_NAV.filter((item) => item.ready);
  const legal = LEGAL_NAV.filter((item) => item.ready);
  const home = hrefIn(pathname, "/");
  const bare = stripLocale(pathname);
  const current = nav.find((item) => (item.to === "/" ? bare === "/" : bare.startsWith(item.to)))?.key;

  return (
    <Layout className="site">
      <a className="skip-link" href="#content">
        {t("nav.skipToContent")}
      </a>
      <Layout.Header className="site-header">
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
          <Button
            className="site-menu-button"
            type="text"
            icon={<MenuOutlined />}
            aria-label={t("nav.menu")}
            aria-expanded={drawerOpen}
            onClick={() => setDrawerOpen(true)}
          />
        </div>
      </Layout.Header>
      <Drawer
        title={site.name}
        placement="right"
        size={300}
        open={drawerOpen}
        onClose={() => setDrawerOpen(false)}
        className="site-drawer"
      >
        <Menu
          mode="vertical"
          selectedKeys={current ? [current] : []}
          onClick={() => setDrawerOpen(false)}
          items={nav.map((item) => ({
            key: item.key,
            label: <Link to={hrefIn(pathname, item.to)}>{t(`nav.${item.key}`)}</Link>,
          }))}
        />
        <div className="site-drawer-tools">
          <ThemeSwitch />
        </div>
      </Drawer>
      <Layout.Content id="content" className="site-content">
        {children}
      </Layout.Content>
      <Layout.Footer className="site-footer">
        <div className="site-footer-main">
          <div>
            <Brand home={home} name={site.name} />
            <p className="site-footer-tagline">{t("site.tagline")}</p>
          </div>
          {legal.length > 0 && (
            <nav aria-label={t("footer.legal")} className="site-footer-links">
              {legal.map((item) => (
                <Link key={item.key} to={hrefIn(pathname, item.to)}>
                  {t(`footer.${item.key}`)}
                </Link>
              ))}
            </nav>
          )}
          <div className="site-footer-tools">
            <LanguageSwitcher />
            <ThemeSwitch />
          </div>
        </div>
        <p className="site-footer-copyright">
          {t("footer.copyright", { year: new Date().getFullYear(), site: site.name })}
        </p>
      </Layout.Footer>
      <FloatButton.BackTop
        visibilityHeight={BACK_TO_TOP.visibilityHeight}
        duration={BACK_TO_TOP.durationMs}
        tooltip={t("nav.backToTop")}
        aria-label={t("nav.backToTop")}
      />
    </Layout>
  );
}
