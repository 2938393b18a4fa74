import type { ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { useLocation } from "react-router";
import GithubOutlined from "@ant-design/icons-svg/es/asn/GithubOutlined";
import GoogleOutlined from "@ant-design/icons-svg/es/asn/GoogleOutlined";
import LoginOutlined from "@ant-design/icons-svg/es/asn/LoginOutlined";
import { Button } from "#app/components/ui/button.tsx";
import { Divider } from "#app/components/ui/display.tsx";
import { Icon } from "#app/components/ui/icon.tsx";
import { hrefIn } from "#common/locales.ts";

const ICONS: Record<string, ReactNode> = {
  github: <Icon icon={GithubOutlined} />,
  google: <Icon icon={GoogleOutlined} />,
};

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
          icon={ICONS[p.id] ?? <Icon icon={LoginOutlined} />}
          href={`${hrefIn(pathname, `/auth/oauth/${p.id}`)}?${new URLSearchParams({ redirect: returnTo }).toString()}`}
          reloadDocument
        >
          {t("oauth.continueWith", { provider: p.name })}
        </Button>
      ))}
      <Divider>{t("oauth.or")}</Divider>
    </div>
  );
}
