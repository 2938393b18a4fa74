import type { IconDefinition } from "@ant-design/icons-svg/lib/types";
import DashboardOutlined from "@ant-design/icons-svg/es/asn/DashboardOutlined";
import LogoutOutlined from "@ant-design/icons-svg/es/asn/LogoutOutlined";
import SafetyOutlined from "@ant-design/icons-svg/es/asn/SafetyOutlined";
import ThunderboltOutlined from "@ant-design/icons-svg/es/asn/ThunderboltOutlined";
import UserOutlined from "@ant-design/icons-svg/es/asn/UserOutlined";
import WalletOutlined from "@ant-design/icons-svg/es/asn/WalletOutlined";
import { useTranslation } from "react-i18next";
import { Form, Link, useLocation } from "react-router";
import { Button, buttonClassName } from "#app/components/ui/button.tsx";
import { Icon } from "#app/components/ui/icon.tsx";
import { Avatar } from "#app/components/ui/display.tsx";
import { MenuButton } from "#app/components/ui/overlay.tsx";
import { hrefIn, stripLocale } from "#common/locales.ts";
import { useRoot } from "#app/lib/use-site.ts";
import { useAvailableCredits } from "#app/lib/credits.ts";
import { formatDate, formatNumber } from "#common/format.ts";
import { isLocale } from "#common/locales.ts";

/** The credits available to spend, in the header of both layouts. */
export function CreditBalance() {
  const { t, i18n } = useTranslation("common");
  const credits = useAvailableCredits();
  const { expiring } = useRoot();
  if (credits === null) return null;
  const locale = isLocale(i18n.language) ? i18n.language : "en";
  // The credits that expire first are said with the balance.
  const label = [
    t("credits.available", { formatted: formatNumber(locale, credits) }),
    ...(expiring
      ? [
          t("credits.expiring", {
            formatted: formatNumber(locale, expiring.credits),
            date: formatDate(locale, expiring.expiresAt, { dateOnly: true }),
          }),
        ]
      : []),
  ].join(" · ");
  return (
    <span className="credit-balance" title={label} aria-label={label} role="status">
      <span aria-hidden>
        <Icon icon={ThunderboltOutlined} />
      </span>
      <span className="credit-balance-value">{formatNumber(locale, credits)}</span>
    </span>
  );
}

export function UserAvatar({ name, image, size = 32 }: { name: string; image: string | null; size?: number }) {
  return (
    <Avatar size={size} src={image ?? undefined} className="user-avatar">
      {name.trim().charAt(0).toUpperCase() || <Icon icon={UserOutlined} />}
    </Avatar>
  );
}

const menuIcon = (icon: IconDefinition) => <Icon icon={icon} className="ant-dropdown-menu-item-icon" />;

/** Signed in: the account menu (dashboard, profile, admin, sign out). Signed out: sign-in and sign-up. */
export function UserMenu() {
  const { t } = useTranslation("common");
  const { pathname } = useLocation();
  const { viewer } = useRoot();
  const returnTo = stripLocale(pathname);

  if (!viewer) {
    const query = /^\/(dashboard|user)(\/|$)/.test(returnTo)
      ? `?${new URLSearchParams({ redirect: returnTo }).toString()}`
      : "";
    return (
      <div className="user-menu-signed-out">
        <Link to={`${hrefIn(pathname, "/auth/login")}${query}`} className="site-nav-link">
          {t("nav.signIn")}
        </Link>
        <Button type="primary" href={hrefIn(pathname, "/auth/register")}>
          {t("nav.register")}
        </Button>
      </div>
    );
  }

  const links = [
    { key: "dashboard", icon: DashboardOutlined, label: t("user.dashboard"), to: "/dashboard/home" },
    { key: "profile", icon: UserOutlined, label: t("user.profile"), to: "/user/profile" },
    { key: "orders", icon: WalletOutlined, label: t("user.orders"), to: "/user/orders" },
    ...(viewer.role === "admin"
      ? [{ key: "admin", icon: SafetyOutlined, label: t("user.admin"), to: "/user/admin" }]
      : []),
  ];
  return (
    <MenuButton
      placement="bottomRight"
      label={t("user.account")}
      triggerClassName={buttonClassName({ type: "text", className: "user-menu-button" })}
      trigger={
        <>
          <UserAvatar name={viewer.name} image={viewer.image} size={28} />
          <span className="user-menu-name">{viewer.name}</span>
        </>
      }
      items={[
        { key: "who", group: <span className="user-menu-email">{viewer.email}</span> },
        ...links.map((item) => ({
          key: item.key,
          icon: menuIcon(item.icon),
          render: (closeMenu: () => void) => (
            <Link role="menuitem" to={hrefIn(pathname, item.to)} onClick={closeMenu}>
              {item.label}
            </Link>
          ),
        })),
        { key: "divider", divider: true },
        {
          key: "signOut",
          icon: menuIcon(LogoutOutlined),
          danger: true,
          render: (closeMenu: () => void) => (
            <Form method="post" action={hrefIn(pathname, "/auth/logout")} onSubmit={closeMenu} className="menu-form">
              <button type="submit" role="menuitem" className="menu-form-button">
                {t("user.signOut")}
              </button>
            </Form>
          ),
        },
      ]}
    />
  );
}
