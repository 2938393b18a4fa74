import { useTranslation } from "react-i18next";
import { useLocation, useNavigate, useRouteLoaderData } from "react-router";
import type { loader as rootLoader } from "#app/root.tsx";
import { Button } from "#app/components/ui/button.tsx";
import { Result } from "#app/components/ui/result.tsx";
import { hrefIn } from "#common/locales.ts";

export function NotFound() {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  const navigate = useNavigate();
  const site = useRouteLoaderData<typeof rootLoader>("root")?.site;
  return (
    <>
      <title>{`${t("msg.pageNotFound")} · ${site?.name ?? ""}`}</title>
      <meta name="robots" content="noindex" />
      <Result
        status="404"
        title={t("msg.pageNotFound")}
        subTitle={<code className="not-found-path">{pathname}</code>}
        extra={
          <Button type="primary" onClick={() => void navigate(hrefIn(pathname, "/"))}>
            {t("action.backHome")}
          </Button>
        }
      />
    </>
  );
}
