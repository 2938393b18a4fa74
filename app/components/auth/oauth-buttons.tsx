import { Button, Divider } from "antd";
import { GithubOutlined, GoogleOutlined, LoginOutlined } from "@ant-design/icons";
import { useTranslation } from "react-i18next";
import { useLocation } from "react-router";
import { hrefIn } from "#common/locales.ts";

const ICONS: Record<string, React.ReactNode> = { github: <GithubOutlined />, google: <GoogleOutlined /> };

/** One button per configured provider; each is a plain link, so the provider's page opens as a normal navigation. */
export function OAuthButtons({
  providers,
  returnTo,
}: {
  providers: Array<{ id: string; name: string }>;
  returnTo: string;
}) {
  const { t } = useTranslation("auth");
  const { pathname } = useLocation();
  if (providers.length === 0) return null;
  return (
    <div className="oauth-buttons">
      {providers.map((p) => (
        <Button
          key={p.id}
          block
          size="large"
          icon={ICONS[p.id] ?? <LoginOutlined />}
          href={`${hrefIn(pathname, `/auth/oauth/${p.id}`)}?${new URLSearchParams({ redirect: returnTo }).toString()}`}
        >
          {t("oauth.continueWith", { provider: p.name })}
        </Button>
      ))}
      <Divider plain>{t("oauth.or")}</Divider>
    </div>
  );
}
