import { useState, type ReactNode } from "react";
import { Form, Input, Progress, Typography } from "antd";
import { useTranslation } from "react-i18next";
import { NAME_MAX, PASSWORD_MAX, PASSWORD_MIN, passwordStrength } from "#common/auth-limits.ts";

export type Errors = Partial<Record<string, string>>;

interface FieldProps {
  name: string;
  label: string;
  errors: Errors;
  autoComplete?: string;
  type?: "text" | "email" | "password";
  defaultValue?: string;
  autoFocus?: boolean;
  extra?: ReactNode;
  onChange?: (value: string) => void;
}

/** A labelled input whose error (an i18n key from the shared schema, checked here or by the server) shows below. */
export function Field({
  name,
  label,
  errors,
  type = "text",
  autoComplete,
  defaultValue,
  autoFocus,
  extra,
  onChange,
}: FieldProps) {
  const { t } = useTranslation("auth");
  const error = errors[name];
  const Component = type === "password" ? Input.Password : Input;
  return (
    <Form.Item
      label={label}
      htmlFor={`field-${name}`}
      validateStatus={error ? "error" : undefined}
      help={error ? t(error, { min: PASSWORD_MIN, max: name === "name" ? NAME_MAX : PASSWORD_MAX }) : undefined}
      extra={extra}
    >
      <Component
        id={`field-${name}`}
        name={name}
        type={type === "password" ? undefined : type}
        autoComplete={autoComplete}
        defaultValue={defaultValue}
        autoFocus={autoFocus}
        size="large"
        maxLength={type === "password" ? PASSWORD_MAX : 254}
        aria-invalid={error ? true : undefined}
        onChange={onChange ? (e) => onChange(e.target.value) : undefined}
      />
    </Form.Item>
  );
}

const LEVELS = ["weak", "fair", "good", "strong"] as const;
const COLORS = ["#ff4d4f", "#faad14", "#52c41a", "#389e0d"];

/** A new-password field with a strength meter and a hint. */
export function NewPasswordField({
  errors,
  name = "password",
  label,
}: {
  errors: Errors;
  name?: string;
  label: string;
}) {
  const { t } = useTranslation("auth");
  const [value, setValue] = useState("");
  const score = passwordStrength(value);
  const extra = (
    <div className="password-strength" aria-live="polite">
      {value && (
        <>
          <Progress percent={(score + 1) * 25} showInfo={false} size="small" strokeColor={COLORS[score]} aria-hidden />
          <Typography.Text type="secondary">
            {t("strength.label", { level: t(`strength.${LEVELS[score]}`) })}
          </Typography.Text>
        </>
      )}
      <div>
        <Typography.Text type="secondary">{t("strength.hint")}</Typography.Text>
      </div>
    </div>
  );
  return (
    <Field
      name={name}
      label={label}
      errors={errors}
      type="password"
      autoComplete="new-password"
      extra={extra}
      onChange={setValue}
    />
  );
}
