import { Button, Card, Typography } from "antd";
import { LockOutlined } from "#app/components/antd-icons.ts";
import { useTranslation } from "react-i18next";
import { Link, useLocation } from "react-router";
import { hrefIn } from "#common/locales.ts";

/** Where to change the password, or which providers the account signs in with when it has none. */
export function PasswordCard({ hasPassword, providers }: { hasPassword: boolean; providers: string[] }) {
  const { t } = useTranslation("user");
  const { pathname } = useLocation();
  return (
    <Card title={t("profile.password")} className="profile-card">
      {hasPassword ? (
        <>
          <Typography.Paragraph type="secondary">{t("profile.passwordHint")}</Typography.Paragraph>
          <Button icon={<LockOutlined />}>
            <Link to={hrefIn(pathname, "/auth/update-password")}>{t("auth:change.title")}</Link>
          </Button>
        </>
      ) : (
        <Typography.Paragraph type="secondary">
          {t("profile.passwordNone", {
            providers: providers.map((p) => p.charAt(0).toUpperCase() + p.slice(1)).join(", "),
          })}
        </Typography.Paragraph>
      )}
    </Card>
  );
}
