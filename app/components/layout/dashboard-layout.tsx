import { useState, type ReactNode } from "react";
import { Button, Drawer, Layout, Menu, Tag } from "antd";
import {
  ApiOutlined,
  HomeOutlined,
  MenuFoldOutlined,
  MenuOutlined,
  MenuUnfoldOutlined,
  MessageOutlined,
  PictureOutlined,
  VideoCameraOutlined,
} from "#app/components/antd-icons.ts";
import { useTranslation } from "react-i18next";
import { Link, useLocation } from "react-router";
import { LanguageSwitcher } from "#app/components/layout/language-switcher.tsx";
import { ThemeSwitch } from "#app/components/layout/theme-switch.tsx";
import { CreditBalance, UserMenu } from "#app/components/layout/user-menu.tsx";
import { BackToTop } from "#app/components/ui/overlay.tsx";
import { useRoot } from "#app/lib/use-site.ts";
import { preferenceCookie } from "#common/cookies.ts";
import { hrefIn, stripLocale } from "#common/locales.ts";

export const SIDEBAR_COOKIE = "sidebar";

/** The studio's sections; one becomes a link when its page exists, until then it is shown as coming. */
export const DASHBOARD_NAV = [
  { key: "home", to: "/dashboard/home", icon: <HomeOutlined />, ready: true },
  { key: "image", to: "/dashboard/image", icon: <PictureOutlined />, ready: true },
  { key: "video", to: "/dashboard/video", icon: <VideoCameraOutlined />, ready: true },
  { key: "chat", to: "/dashboard/chat", icon: <MessageOutlined />, ready: true },
  { key: "apiKeys", to: "/dashboard/api", icon: <ApiOutlined />, ready: true },
] as const;

function SideMenu({ onNavigate }: { onNavigate?: () => void }) {
  const { t } = useTranslation("dashboard");
  const { pathname } = useLocation();
  const bare = stripLocale(pathname);
  const selected = DASHBOARD_NAV.find((item) => bare.startsWith(item.to))?.key;
  return (
    <Menu
      mode="inline"
      className="dash-menu"
      selectedKeys={selected ? [selected] : []}
      onClick={onNavigate}
      items={DASHBOARD_NAV.map((item) => ({
        key: item.key,
        icon: item.icon,
        disabled: !item.ready,
        title: t(`nav.${item.key}`),
        label: item.ready ? (
          <Link to={hrefIn(pathname, item.to)}>{t(`nav.${item.key}`)}</Link>
        ) : (
          <span className="dash-menu-soon">
            {t(`nav.${item.key}`)}
            <Tag bordered={false}>{t("nav.comingSoon")}</Tag>
          </span>
        ),
      }))}
    />
  );
}

/** Sidebar (collapsible, remembered; a drawer on phones), a header with the account menu, and the page. */
export function DashboardLayout({ children, initialCollapsed }: { children: ReactNode; initialCollapsed: boolean }) {
  const { t } = useTranslation("dashboard");
  const { pathname } = useLocation();
  const { site } = useRoot();
  const [collapsed, setCollapsed] = useState(initialCollapsed);
  const [drawerOpen, setDrawerOpen] = useState(false);
  const toggle = () => {
    const next = !collapsed;
    setCollapsed(next);
    document.cookie = preferenceCookie(SIDEBAR_COOKIE, next ? "collapsed" : "open", 365 * 24 * 60 * 60);
  };
  const brand = (
    <Link to={hrefIn(pathname, "/")} className="brand dash-brand">
      <img src="/favicon.svg" alt="" width={28} height={28} />
      {!collapsed && <span>{site.name}</span>}
    </Link>
  );
  return (
    <Layout className="dash">
      <a className="skip-link" href="#content">
        {t("common:nav.skipToContent")}
      </a>
      <Layout.Sider
        className="dash-sider"
        width={232}
        collapsedWidth={72}
        collapsed={collapsed}
        trigger={null}
        theme="light"
        aria-label={t("nav.label")}
      >
        {brand}
        <SideMenu />
      </Layout.Sider>
      <Drawer
        className="dash-drawer"
        placement="left"
        size={280}
        open={drawerOpen}
        onClose={() => setDrawerOpen(false)}
        title={site.name}
      >
        <SideMenu onNavigate={() => setDrawerOpen(false)} />
      </Drawer>
      <Layout>
        <Layout.Header className="dash-header">
          <Button
            type="text"
            className="dash-collapse"
            icon={collapsed ? <MenuUnfoldOutlined /> : <MenuFoldOutlined />}
            aria-label={t(collapsed ? "nav.expand" : "nav.collapse")}
            aria-expanded={!collapsed}
            onClick={toggle}
          />
          <Button
            type="text"
            className="dash-menu-button"
            icon={<MenuOutlined />}
            aria-label={t("common:nav.menu")}
            aria-expanded={drawerOpen}
            onClick={() => setDrawerOpen(true)}
          />
          <div className="dash-header-tools">
            <LanguageSwitcher />
            <span className="dash-theme">
              <ThemeSwitch />
            </span>
            <CreditBalance />
            <UserMenu />
          </div>
        </Layout.Header>
        <Layout.Content id="content" className="dash-content">
          {children}
        </Layout.Content>
      </Layout>
      <BackToTop label={t("common:nav.backToTop")} />
    </Layout>
  );
}
