import { Alert, Button, Card, Input, Space, Typography } from "antd";
import { useTranslation } from "react-i18next";
import { Form, useNavigation } from "react-router";

/** What an action of the console answers: a message to show (translated by key), and the field at fault. */
export interface AdminResult {
  intent?: string;
  ok?: string;
  error?: string;
  field?: string;
  values?: Record<string, string | number>;
}

interface Record_ {
  id: string;
  role: string;
  banned: boolean;
  emailVerified: boolean;
}

/** The answer of the last action, where it was taken; it is in the page, so it shows before the scripts too. */
export function ResultNotice({ result }: { result: AdminResult | undefined }) {
  const { t } = useTranslation("admin");
  if (!result || (!result.ok && !result.error)) return null;
  return (
    <Alert
      className="admin-notice"
      role={result.error ? "alert" : "status"}
      type={result.error ? "error" : "success"}
      showIcon
      title={t(result.ok ?? result.error!, result.values ?? {})}
    />
  );
}

/**
 * What an administrator can do to an account: the admin role, a suspension (with its reason, ending the sessions),
 * a correction of the balance (with its reason) and the confirmation e-mail again. Plain forms: each works before
 * the scripts, and each is written to the audit log.
 */
export function UserActions({
  record,
  self,
  balance,
  result,
}: {
  record: Record_;
  self: boolean;
  balance: number;
  result: AdminResult | undefined;
}) {
  const { t } = useTranslation("admin");
  const navigation = useNavigation();
  const busy = (intent: string) => navigation.state === "submitting" && navigation.formData?.get("intent") === intent;
  const fieldError = (intent: string, field: string) =>
    result?.intent === intent && result.field === field ? ("error" as const) : undefined;
  return (
    <Card title={t("user.actions")} className="admin-actions">
      <ResultNotice result={result} />
      <Space orientation="vertical" size={20} className="admin-action-list">
        <Form method="post" className="admin-action">
          <Typography.Text strong>{t("user.role")}</Typography.Text>
          {self ? (
            <Typography.Text type="secondary">{t("user.yourOwnRole")}</Typography.Text>
          ) : record.role === "admin" ? (
            <Button htmlType="submit" name="intent" value="revoke" loading={busy("revoke")}>
              {t("user.revoke")}
            </Button>
          ) : (
            <Button htmlType="submit" name="intent" value="grant" loading={busy("grant")}>
              {t("user.grant")}
            </Button>
          )}
        </Form>
        {record.banned ? (
          <Form method="post" className="admin-action">
            <Typography.Text strong>{t("user.suspension")}</Typography.Text>
            <Button htmlType="submit" name="intent" value="unban" loading={busy("unban")}>
              {t("user.unban")}
            </Button>
          </Form>
        ) : (
          !self && (
            <ReasonForm
              intent="ban"
              id="ban-reason"
              label={t("user.suspension")}
              button={t("user.ban")}
              hint={t("user.banHint")}
              placeholder={t("user.banReasonPlaceholder")}
              danger
              invalid={Boolean(fieldError("ban", "reason"))}
            />
          )
        )}
        <Form method="post" className="admin-action" key={`adjust-${balance}`}>
          <Typography.Text strong>{t("user.adjust")}</Typography.Text>
          <div className="admin-adjust">
            <Input
              name="amount"
              type="number"
              inputMode="numeric"
              step={1}
              required
              aria-label={t("user.amount")}
              placeholder={t("user.amountPlaceholder")}
              status={fieldError("adjust", "amount")}
            />
            <Input
              name="reason"
              maxLength={500}
              required
              aria-label={t("user.reason")}
              placeholder={t("user.reasonPlaceholder")}
              status={fieldError("adjust", "reason")}
            />
            <Button htmlType="submit" name="intent" value="adjust" type="primary" loading={busy("adjust")}>
              {t("user.apply")}
            </Button>
          </div>
          <Typography.Text type="secondary">{t("user.adjustHint")}</Typography.Text>
        </Form>
        {!record.emailVerified && (
          <Form method="post" className="admin-action">
            <Typography.Text strong>{t("user.confirmation")}</Typography.Text>
            <Button htmlType="submit" name="intent" value="resend" loading={busy("resend")}>
              {t("user.resend")}
            </Button>
          </Form>
        )}
      </Space>
    </Card>
  );
}

/** An action that needs a reason (kept in the audit log): its label, the reason's field and the button, in one form. */
export function ReasonForm({
  intent,
  id,
  label,
  button,
  hint,
  placeholder,
  danger = false,
  invalid = false,
}: {
  intent: string;
  id: string;
  label: string;
  button: string;
  hint?: string;
  placeholder?: string;
  danger?: boolean;
  invalid?: boolean;
}) {
  const { t } = useTranslation("admin");
  const navigation = useNavigation();
  const busy = navigation.state === "submitting" && navigation.formData?.get("intent") === intent;
  return (
    <Form method="post" className="admin-action">
      <label htmlFor={id}>
        <Typography.Text strong>{label}</Typography.Text>
      </label>
      <Space.Compact block>
        <Input
          id={id}
          name="reason"
          maxLength={500}
          required
          placeholder={placeholder ?? t("user.reasonPlaceholder")}
          status={invalid ? "error" : undefined}
        />
        <Button htmlType="submit" name="intent" value={intent} danger={danger} loading={busy}>
          {button}
        </Button>
      </Space.Compact>
      {hint && <Typography.Text type="secondary">{hint}</Typography.Text>}
    </Form>
  );
}
