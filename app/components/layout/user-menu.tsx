import { Avatar, Button, Dropdown } from "antd";
import {
  DashboardOutlined,
  LogoutOutlined,
  SafetyOutlined,
  ThunderboltOutlined,
  UserOutlined,
  WalletOutlined,
} from "@ant-design/icons";
import { useTranslation } from "react-i18next";
import { Link, useLocation, useNavigate, useSubmit } from "react-router";
import { hrefIn, stripLocale } from "#common/locales.ts";
import { useRoot } from "#app/lib/use-site.ts";
import { useAvailableCredits } from "#app/lib/credits.ts";
import { formatNumber } from "#common/format.ts";
import { isLocale } from "#common/locales.ts";

/** The credits available to spend, in the header of both layouts. */
export function CreditBalance() {
  const { t, i18n } = useTranslation("common");
  const credits = useAvailableCredits();
  if (credits === null) return null;
  const locale = isLocale(i18n.language) ? i18n.language : "en";
  const label = t("credits.available", { formatted: formatNumber(locale, credits) });
  return (
    <span className="credit-balance" title={label} aria-label={label} role="status">
      <ThunderboltOutlined aria-hidden />
      <span className="credit-balance-value">{formatNumber(locale, credits)}</span>
    </span>
  );
}

export function UserAvatar({ name, image, size = 32 }: { name: string; image: string | null; size?: number }) {
  return (
    <Avatar size={size} src={image ?? undefined} alt="" className="user-avatar">
      {name.trim().charAt(0).toUpperCase() || <UserOutlined />}
    </Avatar>
  );
}

/** Signed in: the account menu (dashboard, profile, admin, sign out). Signed out: sign-in and sign-up. */
export function UserMenu() {
  const { t } = useTranslation("common");
  const { pathname } = useLocation();
  const navigate = useNavigate();
  const submit = useSubmit();
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

  const items = [
    { key: "dashboard", icon: <DashboardOutlined />, label: t("user.dashboard"), to: "/dashboard/home" },
    { key: "profile", icon: <UserOutlined />, label: t("user.profile"), to: "/user/profile" },
    { key: "orders", icon: <WalletOutlined />, label: t("user.orders"), to: "/user/orders" },
    ...(viewer.role === "admin"
      ? [{ key: "admin", icon: <SafetyOutlined />, label: t("user.admin"), to: "/user/admin" }]
      : []),
  ];
  return (
    <Dropdown
      trigger={["click"]}
      placement="bottomRight"
      menu={{
        items: [
          { key: "who", type: "group", label: <span className="user-menu-email">{viewer.email}</span> },
          ...items.map((i) => ({ key: i.key, icon: i.icon, label: i.label })),
          { type: "divider" },
          { key: "signOut", icon: <LogoutOutlined />, label: t("user.signOut"), danger: true },
        ],
        onClick: ({ key }) => {
          if (key === "signOut") {
            void submit(null, { method: "post", action: hrefIn(pathname, "/auth/logout") });
            return;
          }
          const item = items.find((i) => i.key === key);
          if (item) void navigate(hrefIn(pathname, item.to));
        },
      }}
    >
      <Button type="text" className="user-menu-button" aria-label={t("user.account")}>
        <UserAvatar name={viewer.name} image={viewer.image} size={28} />
        <span className="user-menu-name">{viewer.name}</span>
      </Button>
    </Dropdown>
  );
}
