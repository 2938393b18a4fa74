import { useState, type ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { FormItem, Input, PasswordInput } from "#app/components/ui/form.tsx";
import { Progress } from "#app/components/ui/progress.tsx";
import { Text } from "#app/components/ui/typography.tsx";
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
  const props = {
    id: `field-${name}`,
    name,
    autoComplete,
    defaultValue,
    autoFocus,
    size: "large" as const,
    maxLength: type === "password" ? PASSWORD_MAX : 254,
    "aria-invalid": error ? true : undefined,
    // The input event itself: React's onChange skips one that brings the value React saw at hydration, which is
    // how what was typed before the scripts ran comes back (typed-before-hydration.ts).
    onInput: onChange ? (e: { currentTarget: { value: string } }) => onChange(e.currentTarget.value) : undefined,
  };
  return (
    <FormItem
      label={label}
      htmlFor={props.id}
      error={error ? t(error, { min: PASSWORD_MIN, max: name === "name" ? NAME_MAX : PASSWORD_MAX }) : undefined}
      extra={extra}
    >
      {type === "password" ? (
        <PasswordInput {...props} showLabel={t("field.showPassword")} hideLabel={t("field.hidePassword")} />
      ) : (
        <Input {...props} type={type} />
      )}
    </FormItem>
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
          <Progress percent={(score + 1) * 25} size="small" strokeColor={COLORS[score]} aria-hidden />
          <Text type="secondary">{t("strength.label", { level: t(`strength.${LEVELS[score]}`) })}</Text>
        </>
      )}
      <div>
        <Text type="secondary">{t("strength.hint", { min: PASSWORD_MIN })}</Text>
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
