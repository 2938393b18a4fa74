import { useTranslation } from "react-i18next";
import { NavLink, useLocation } from "react-router";
import { hrefIn } from "#common/locales.ts";

const SECTIONS = [
  { key: "overview", path: "/user/admin", end: true },
  { key: "users", path: "/user/admin/users", end: false },
  { key: "orders", path: "/user/admin/orders", end: false },
  { key: "generations", path: "/user/admin/generations", end: false },
  { key: "review", path: "/user/admin/review", end: false },
  { key: "models", path: "/user/admin/models", end: false },
  { key: "connections", path: "/user/admin/connections", end: false },
  { key: "codes", path: "/user/admin/codes", end: false },
  { key: "plans", path: "/user/admin/plans", end: false },
  { key: "settings", path: "/user/admin/settings", end: false },
  { key: "audit", path: "/user/admin/audit", end: false },
] as const;

/**
 * The console's sections: plain links (they work before the scripts), scrolled sideways on a phone; a section with
 * work waiting (the review queue) shows how much.
 */
export function AdminNav({ counts = {} }: { counts?: Partial<Record<(typeof SECTIONS)[number]["key"], number>> }) {
  const { t } = useTranslation("admin");
  const { pathname } = useLocation();
  return (
    <nav className="admin-nav" aria-label={t("nav.label")}>
      <span className="admin-nav-title">{t("nav.label")}</span>
      {SECTIONS.map((section) => (
        <NavLink key={section.key} to={hrefIn(pathname, section.path)} end={section.end} className="admin-nav-link">
          {t(`nav.${section.key}`)}
          {Boolean(counts[section.key]) && (
            <span className="admin-nav-count" data-testid={`nav-count-${section.key}`}>
              <span aria-hidden="true">{counts[section.key]}</span>
              <span className="visually-hidden">{t("nav.waiting", { count: counts[section.key] })}</span>
            </span>
          )}
        </NavLink>
      ))}
    </nav>
  );
}
