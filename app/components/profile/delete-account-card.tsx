import { useState } from "react";
import { Alert, Button, Card, Input, Modal, Typography } from "antd";
import { DeleteOutlined } from "#app/components/antd-icons.ts";
import { useTranslation } from "react-i18next";
import { useFetcher } from "react-router";
import type { ProfileResult } from "./result.ts";

/** Deleting the account, confirmed with its password (or its address, without one). */
export function DeleteAccountCard({ hasPassword }: { hasPassword: boolean }) {
  const { t } = useTranslation("user");
  const [open, setOpen] = useState(false);
  const fetcher = useFetcher<ProfileResult>();
  const error = fetcher.data?.field === "delete" ? fetcher.data.error : undefined;
  return (
    <Card title={t("profile.danger")} className="profile-card profile-danger">
      <Typography.Paragraph type="secondary">{t("profile.deleteHint")}</Typography.Paragraph>
      <Button danger icon={<DeleteOutlined />} onClick={() => setOpen(true)}>
        {t("profile.deleteButton")}
      </Button>
      <Modal
        open={open}
        title={t("profile.deleteConfirmTitle")}
        onCancel={() => setOpen(false)}
        footer={null}
        destroyOnHidden
      >
        <fetcher.Form method="post">
          <Typography.Paragraph>
            {t(hasPassword ? "profile.deleteConfirm" : "profile.deleteConfirmOAuth")}
          </Typography.Paragraph>
          {error && <Alert type="error" showIcon title={t(error)} className="auth-alert" role="alert" />}
          {hasPassword ? (
            <Input.Password
              name="password"
              autoComplete="current-password"
              aria-label={t("auth:field.password")}
              autoFocus
            />
          ) : (
            <Input name="email" type="email" aria-label={t("auth:field.email")} autoFocus />
          )}
          <div className="modal-actions">
            <Button onClick={() => setOpen(false)}>{t("common:action.cancel")}</Button>
            <Button
              danger
              type="primary"
              htmlType="submit"
              name="intent"
              value="delete"
              // Busy with its own request only: a loading button ignores clicks, and another form's navigation
              // (the avatar's upload) must not swallow this one.
              loading={fetcher.state !== "idle"}
            >
              {t("profile.deleteButton")}
            </Button>
          </div>
        </fetcher.Form>
      </Modal>
    </Card>
  );
}
