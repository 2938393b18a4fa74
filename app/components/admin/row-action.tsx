import { Button } from "antd";
import { Form, useNavigation } from "react-router";

/**
 * One action on a row of a console table: a plain POST form naming the row (`field` = `value`) and the intent, so
 * it works before the scripts arrive; its button spins while this row's action is being sent.
 */
export function RowAction({
  field,
  value,
  intent,
  danger,
  disabled,
  label,
  children,
}: {
  field: string;
  value: string;
  intent: string;
  danger?: boolean;
  disabled?: boolean;
  /** The button's name when its content is a symbol. */
  label?: string;
  children: React.ReactNode;
}) {
  const navigation = useNavigation();
  const busy =
    navigation.state === "submitting" &&
    navigation.formData?.get("intent") === intent &&
    navigation.formData.get(field) === value;
  return (
    <Form method="post">
      <input type="hidden" name={field} value={value} />
      <Button
        htmlType="submit"
        name="intent"
        value={intent}
        size="small"
        danger={danger}
        disabled={disabled}
        loading={busy}
        aria-label={label}
        title={label}
      >
        {children}
      </Button>
    </Form>
  );
}
