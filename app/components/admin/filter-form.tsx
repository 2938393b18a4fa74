import { Button, Select } from "antd";
import { useLayoutEffect, useRef, useState } from "react";
import { flushSync } from "react-dom";
import { useTranslation } from "react-i18next";
import { Form, useLocation, useSubmit } from "react-router";
import { useHydrated } from "#app/components/relative-time.tsx";
import { DayField } from "#app/components/admin/day-field.tsx";
import { PERIODS, type Period } from "#common/admin.ts";
import { isLocale } from "#common/locales.ts";

/**
 * A list's filters as a GET form: its values are the page's address, so a filtered list can be shared and reloaded.
 * Choosing in a list or a calendar applies at once once the scripts are there; before, the button does.
 */
export function FilterForm({ children, label }: { children: React.ReactNode; label: string }) {
  const { t } = useTranslation("admin");
  return (
    <Form method="get" className="admin-filters" role="search" aria-label={label}>
      {children}
      <Button htmlType="submit" type="primary">
        {t("filters.apply")}
      </Button>
    </Form>
  );
}

/** Sends a filter form as the page's new address (the way its button would). */
function useApply() {
  const submit = useSubmit();
  return (form: HTMLFormElement) => void submit(form);
}

/**
 * A choice among a few values, with "any" first unless it is a choice of order. The server's page has the browser's
 * own list, so that the filters work before the scripts arrive; once they run, Ant Design's select takes its place
 * (a hidden field carries its value) and a choice applies at once. A choice made in the first list is kept.
 */
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
  const id = `filter-${name}`;
  const hydrated = useHydrated();
  const apply = useApply();
  const [current, setCurrent] = useState(value ?? "");
  const native = useRef<HTMLSelectElement>(null);
  const hidden = useRef<HTMLInputElement>(null);
  useLayoutEffect(() => {
    if (native.current && native.current.value !== (value ?? "")) setCurrent(native.current.value);
  }, [value]);
  const choices = any ? [{ value: "", label: t("filters.any") }, ...options] : options;
  return (
    <div className="admin-filter admin-filter-choice">
      <label htmlFor={id}>{label}</label>
      {hydrated ? (
        <>
          <Select
            id={id}
            className="admin-filter-select"
            value={current}
            options={choices}
            popupMatchSelectWidth={false}
            onChange={(next: string) => {
              flushSync(() => setCurrent(next));
              if (hidden.current?.form) apply(hidden.current.form);
            }}
          />
          <input ref={hidden} type="hidden" name={name} value={current} />
        </>
      ) : (
        <select ref={native} id={id} name={name} defaultValue={value ?? ""} className="admin-select">
          {choices.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      )}
    </div>
  );
}

/** The first and last day of a list's filters (`from`, `to`), each a calendar in the page's language. */
export function DayRange({ from, to }: { from: string | undefined; to: string | undefined }) {
  const { t, i18n } = useTranslation("admin");
  const locale = isLocale(i18n.language) ? i18n.language : "en";
  const apply = useApply();
  return (
    <>
      <div className="admin-filter admin-filter-day">
        <label htmlFor="filter-from">{t("audit.from")}</label>
        <DayField id="filter-from" name="from" locale={locale} defaultValue={from} onPicked={apply} />
      </div>
      <div className="admin-filter admin-filter-day">
        <label htmlFor="filter-to">{t("audit.to")}</label>
        <DayField id="filter-to" name="to" locale={locale} defaultValue={to} onPicked={apply} />
      </div>
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
