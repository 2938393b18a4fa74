import { Button, Card, Form as AntForm, Input, Space, Typography, Upload } from "antd";
import { UploadOutlined } from "#app/components/antd-icons.ts";
import { useTranslation } from "react-i18next";
import { useFetcher } from "react-router";
import { useToast } from "#app/components/feedback.ts";
import { UserAvatar } from "#app/components/layout/user-menu.tsx";
import { AVATAR_MAX_BYTES } from "#common/uploads.ts";
import { formatDate } from "#common/format.ts";
import type { Locale } from "#common/locales.ts";
import { useResultToast, type ProfileResult } from "./result.ts";

/** The account's picture, name and address: the picture is sent as soon as it is chosen, the name with its button. */
export function DetailsCard({
  account,
  locale,
}: {
  account: { name: string; email: string; image: string | null; createdAt: Date | string };
  locale: Locale;
}) {
  const { t } = useTranslation("user");
  const toast = useToast();
  const nameFetcher = useFetcher<ProfileResult>();
  const avatarFetcher = useFetcher<ProfileResult>();
  useResultToast(nameFetcher.data);
  useResultToast(avatarFetcher.data);
  const nameError = nameFetcher.data?.field === "name" ? nameFetcher.data.error : undefined;
  return (
    <Card title={t("profile.details")} className="profile-card">
      <div className="profile-avatar">
        <UserAvatar name={account.name} image={account.image} size={88} />
        <div>
          <Typography.Text strong>{t("profile.avatar")}</Typography.Text>
          <Typography.Paragraph type="secondary">{t("profile.avatarHint")}</Typography.Paragraph>
          <Space wrap>
            <Upload
              accept="image/png,image/jpeg,image/webp"
              showUploadList={false}
              maxCount={1}
              customRequest={({ file }) => {
                const body = new FormData();
                body.set("intent", "avatar");
                body.set("avatar", file as File);
                void avatarFetcher.submit(body, { method: "post", encType: "multipart/form-data" });
              }}
              beforeUpload={(file) => {
                // Saves sending a large file only to hear it is too large; the server checks again.
                if (file.size <= AVATAR_MAX_BYTES) return true;
                toast.error(t("profile.avatarTooLarge"));
                return Upload.LIST_IGNORE;
              }}
            >
              <Button icon={<UploadOutlined />} loading={avatarFetcher.state !== "idle"}>
                {t("profile.avatarUpload")}
              </Button>
            </Upload>
            {account.image && (
              <avatarFetcher.Form method="post">
                <Button htmlType="submit" name="intent" value="avatar-remove">
                  {t("profile.avatarRemove")}
                </Button>
              </avatarFetcher.Form>
            )}
          </Space>
        </div>
      </div>
      <nameFetcher.Form method="post" className="profile-name">
        <AntForm component={false} layout="vertical">
          <AntForm.Item
            label={t("profile.name")}
            htmlFor="profile-name"
            validateStatus={nameError ? "error" : undefined}
            help={nameError ? t(nameError, { max: 80 }) : undefined}
          >
            <Space.Compact className="profile-name-row">
              <Input id="profile-name" name="name" defaultValue={account.name} maxLength={80} autoComplete="name" />
              <Button
                type="primary"
                htmlType="submit"
                name="intent"
                value="name"
                loading={nameFetcher.state !== "idle"}
              >
                {t("profile.saveName")}
              </Button>
            </Space.Compact>
          </AntForm.Item>
          <AntForm.Item label={t("profile.email")}>
            <Typography.Text>{account.email}</Typography.Text>
          </AntForm.Item>
        </AntForm>
      </nameFetcher.Form>
      <Typography.Text type="secondary">
        {t("profile.memberSince", { date: formatDate(locale, account.createdAt, { dateOnly: true }) })}
      </Typography.Text>
    </Card>
  );
}
