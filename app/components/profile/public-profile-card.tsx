import { Button, Card, Checkbox, Form as AntForm, Input, Typography } from "antd";
import { useTranslation } from "react-i18next";
import { Link, useFetcher, useLocation } from "react-router";
import { BIO_MAX, HANDLE_MAX } from "#common/explore.ts";
import { hrefIn } from "#common/locales.ts";
import { useResultToast, type ProfileResult } from "./result.ts";

/**
 * The account's public side: its handle (its creator page's address), a few words about it, and whether new results
 * start private. A plain form: it works before the scripts.
 */
export function PublicProfileCard({
  account,
}: {
  account: { handle: string | null; bio: string | null; publishByDefault: boolean };
}) {
  const { t } = useTranslation("user");
  const { pathname } = useLocation();
  const fetcher = useFetcher<ProfileResult>();
  useResultToast(fetcher.data);
  const error = (field: string) => (fetcher.data?.field === field ? fetcher.data.error : undefined);
  return (
    <Card title={t("profile.public.title")} className="profile-card" id="public-profile">
      <Typography.Paragraph type="secondary">{t("profile.public.hint")}</Typography.Paragraph>
      <fetcher.Form method="post" className="profile-public">
        <AntForm component={false} layout="vertical">
          <AntForm.Item
            label={t("profile.public.handle")}
            htmlFor="profile-handle"
            validateStatus={error("handle") ? "error" : undefined}
            help={error("handle") ? t(error("handle")!) : t("profile.public.handleHint")}
          >
            <Input
              id="profile-handle"
              name="handle"
              prefix="@"
              defaultValue={account.handle ?? ""}
              maxLength={HANDLE_MAX + 1}
              autoComplete="username"
              spellCheck={false}
            />
          </AntForm.Item>
          <AntForm.Item
            label={t("profile.public.bio")}
            htmlFor="profile-bio"
            validateStatus={error("bio") ? "error" : undefined}
            help={error("bio") ? t(error("bio")!, { max: BIO_MAX }) : undefined}
          >
            <Input.TextArea id="profile-bio" name="bio" rows={3} maxLength={BIO_MAX} defaultValue={account.bio ?? ""} />
          </AntForm.Item>
          <AntForm.Item>
            <Checkbox name="keepPrivate" defaultChecked={!account.publishByDefault}>
              {t("profile.public.keepPrivate")}
            </Checkbox>
          </AntForm.Item>
          <Button
            type="primary"
            htmlType="submit"
            name="intent"
            value="publicProfile"
            loading={fetcher.state !== "idle"}
          >
            {t("profile.public.save")}
          </Button>
          {account.handle && (
            <Link to={hrefIn(pathname, `/u/${account.handle}`)} className="profile-public-link">
              {t("profile.public.open")}
            </Link>
          )}
        </AntForm>
      </fetcher.Form>
    </Card>
  );
}
