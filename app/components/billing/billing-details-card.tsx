import { Card } from "antd";
import { IdcardOutlined } from "#app/components/antd-icons.ts";
import { useMemo } from "react";
import { useTranslation } from "react-i18next";
import { Form } from "react-router";
import { Button } from "#app/components/ui/button.tsx";
import { Alert } from "#app/components/ui/display.tsx";
import { FormItem, Input } from "#app/components/ui/form.tsx";
import {
  BILLING_COUNTRIES,
  BILLING_FIELDS,
  TAX_ID_TYPE_LIST,
  TAX_ID_TYPES,
  type BillingDetailsInput,
} from "#common/billing-details.ts";

const FIELDS = new Set<string>(BILLING_FIELDS);
import type { Locale } from "#common/locales.ts";

/** What the billing details form answers: saved, or refused with the field and the message. */
export type BillingDetailsAnswer = { billingSaved: true } | { billingError: string; field: string };

/**
 * The account's billing details: the name and address its invoices and receipts carry, and a tax id. Saved at
 * Stripe (which checks the tax id) and here. Countries' names come from `Intl`, in the page's language; a tax id's
 * kind is its country and the example of its format. A plain form: it posts before the page's scripts run.
 */
export function BillingDetailsCard({
  details,
  locale,
  answer,
}: {
  details: BillingDetailsInput;
  locale: Locale;
  answer?: BillingDetailsAnswer;
}) {
  const { t } = useTranslation("billing");
  const { countries, taxTypes } = useMemo(() => {
    const regions = new Intl.DisplayNames([locale], { type: "region" });
    const byName = new Intl.Collator(locale).compare;
    return {
      countries: BILLING_COUNTRIES.map((code) => ({ value: code, name: regions.of(code) ?? code })).sort((a, b) =>
        byName(a.name, b.name),
      ),
      taxTypes: TAX_ID_TYPE_LIST.map((type) => ({
        value: type,
        name: `${regions.of(TAX_ID_TYPES[type].region) ?? TAX_ID_TYPES[type].region} (${TAX_ID_TYPES[type].example})`,
      })).sort((a, b) => byName(a.name, b.name)),
    };
  }, [locale]);
  const error = answer && "billingError" in answer ? answer : null;
  const fieldError = (field: keyof BillingDetailsInput) => (error?.field === field ? t(error.billingError) : undefined);
  const text = (field: keyof BillingDetailsInput, autoComplete: string, required = false) => (
    <FormItem label={t(`orders.billingDetails.${field}`)} htmlFor={`billing-${field}`} error={fieldError(field)}>
      <Input
        id={`billing-${field}`}
        name={field}
        autoComplete={autoComplete}
        defaultValue={details[field]}
        required={required}
        status={fieldError(field) ? "error" : undefined}
      />
    </FormItem>
  );
  // A native select: it works before the page's scripts, and on a phone opens the system's own list. Node's and the
  // browser's `Intl` may name a country differently: the server's name stays.
  const choice = (
    field: "country" | "taxIdType",
    autoComplete: string,
    none: string,
    options: { value: string; name: string }[],
  ) => (
    <FormItem label={t(`orders.billingDetails.${field}`)} htmlFor={`billing-${field}`} error={fieldError(field)}>
      <select
        id={`billing-${field}`}
        name={field}
        autoComplete={autoComplete}
        className="orders-native-select"
        defaultValue={details[field]}
      >
        <option value="">{t(`orders.billingDetails.${none}`)}</option>
        {options.map((o) => (
          <option key={o.value} value={o.value} suppressHydrationWarning>
            {o.name}
          </option>
        ))}
      </select>
    </FormItem>
  );
  return (
    <Card
      className="orders-billing"
      title={
        <span>
          <IdcardOutlined aria-hidden /> {t("orders.billingDetails.title")}
        </span>
      }
    >
      {answer && "billingSaved" in answer && <Alert type="success" title={t("orders.billingDetails.saved")} />}
      {error && !FIELDS.has(error.field) && <Alert type="error" title={t(error.billingError)} />}
      <p className="orders-topup-help">{t("orders.billingDetails.help")}</p>
      <Form method="post" className="orders-billing-form">
        <div className="orders-billing-fields">
          {text("name", "billing name")}
          {text("line1", "billing address-line1")}
          {text("line2", "billing address-line2")}
          {text("postalCode", "billing postal-code")}
          {text("city", "billing address-level2")}
          {text("state", "billing address-level1")}
          {choice("country", "billing country", "noCountry", countries)}
          {choice("taxIdType", "off", "noTaxId", taxTypes)}
          {text("taxIdValue", "off")}
        </div>
        <div className="orders-topup-actions">
          <Button type="primary" htmlType="submit" name="intent" value="billingDetails">
            {t("orders.billingDetails.save")}
          </Button>
        </div>
      </Form>
    </Card>
  );
}
