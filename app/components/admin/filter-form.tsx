import { Button, Input } from "antd";
import { useTranslation } from "react-i18next";
import { Form, useLocation, useSubmit } from "react-router";
import { PERIODS, type Period } from "#common/admin.ts";

/**
 * A list's filters as a GET form: its values are the page's address, so a filtered list can be shared and reloaded.
 * Choosing in a list applies at once once the scripts are there; before, the button does.
 */
export function FilterForm({ children, label }: { children: React.ReactNode; label: string }) {
  const { t } = useTranslation("admin");
  const submit = useSubmit();
  return (
    <Form
      method="get"
      className="admin-filters"
      role="search"
      aria-label={label}
      onChange={(event) => {
        if (event.target instanceof HTMLSelectElement) void submit(event.currentTarget);
      }}
    >
      {children}
      <Button htmlType="submit" type="primary">
        {t("filters.apply")}
      </Button>
    </Form>
  );
}

/** A native list (it works before the scripts and on every phone), with "any" first unless it is a choice of order. */
export function FilterSelect({
  name,
  label,
  value,
  options,
  any = true,
}: {
  name: string;
  label: string;
  value: string | undefined;
  options: { value: string; label: string }[];
  any?: boolean;
}) {
  const { t } = useTranslation("admin");
  return (
    <label className="admin-filter">
      <span>{label}</span>
      <select name={name} defaultValue={value ?? ""} className="admin-select">
        {any && <option value="">{t("filters.any")}</option>}
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </label>
  );
}

/** The first and last day of a list's filters (`from`, `to`), as native date fields. */
export function DayRange({ from, to }: { from: string | undefined; to: string | undefined }) {
  const { t } = useTranslation("admin");
  return (
    <>
      <label className="admin-filter">
        <span>{t("audit.from")}</span>
        <Input name="from" type="date" defaultValue={from} />
      </label>
      <label className="admin-filter">
        <span>{t("audit.to")}</span>
        <Input name="to" type="date" defaultValue={to} />
      </label>
    </>
  );
}

/** The period a page's figures cover (24 h to 90 days), as its one filter. */
export function PeriodFilter({ period, label }: { period: Period; label: string }) {
  const { t } = useTranslation("admin");
  const { search } = useLocation();
  return (
    <FilterForm key={search} label={label}>
      <FilterSelect
        name="period"
        label={t("periods.label")}
        value={period}
        any={false}
        options={PERIODS.map((p) => ({ value: p, label: t(`periods.${p}`) }))}
      />
    </FilterForm>
  );
}
