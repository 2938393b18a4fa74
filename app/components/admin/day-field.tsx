import { DatePicker, Input, type InputRef } from "antd";
import dayjs, { type Dayjs } from "dayjs";
import { useEffect, useLayoutEffect, useRef, useState } from "react";
import { flushSync } from "react-dom";
import { useHydrated } from "#app/components/relative-time.tsx";
import type { Locale } from "#common/locales.ts";

/** A day as forms post it: `YYYY-MM-DD`. */
const DAY = "YYYY-MM-DD";

// The calendar's month and weekday names come from Day.js (Ant Design's date library); each language is a small
// chunk, loaded when a page first shows a day field. English is built in.
const DAYJS_LOCALES: Record<Exclude<Locale, "en">, () => Promise<unknown>> = {
  zh: () => import("dayjs/locale/zh-cn"),
  ru: () => import("dayjs/locale/ru"),
  de: () => import("dayjs/locale/de"),
  fr: () => import("dayjs/locale/fr"),
  ja: () => import("dayjs/locale/ja"),
  ko: () => import("dayjs/locale/ko"),
  es: () => import("dayjs/locale/es"),
  pt: () => import("dayjs/locale/pt-br"),
  tr: () => import("dayjs/locale/tr"),
};

const dayOf = (value: string): Dayjs | null => {
  const day = /^\d{4}-\d\d-\d\d$/.test(value) ? dayjs(value) : null;
  return day?.isValid() ? day : null;
};

/**
 * One day of a form, posted as `name` (`YYYY-MM-DD`, empty for none). The server's page has the browser's own date
 * field, so that the form works before its scripts arrive; once they run, Ant Design's date picker (in the page's
 * language) takes its place and a hidden field carries its value. A day chosen in the first field is kept.
 * `onPicked` runs once the hidden field holds a newly chosen day (a filter applies it at once).
 */
export function DayField({
  id,
  name,
  locale,
  defaultValue = "",
  future = false,
  status,
  onPicked,
}: {
  id?: string;
  name: string;
  locale: Locale;
  defaultValue?: string;
  /** Days before today cannot be picked (the server still checks). */
  future?: boolean;
  status?: "error";
  onPicked?: (form: HTMLFormElement) => void;
}) {
  const hydrated = useHydrated();
  const [value, setValue] = useState(defaultValue);
  const native = useRef<InputRef>(null);
  const hidden = useRef<HTMLInputElement>(null);
  // What was chosen in the browser's field before the scripts ran, read before the picker replaces it.
  useLayoutEffect(() => {
    const typed = native.current?.input?.value;
    if (typed !== undefined && typed !== defaultValue) setValue(typed);
  }, [defaultValue]);
  // Drawn again once the language's names are there (a calendar opened before would show English ones).
  const [, setNamesLoaded] = useState(locale === "en");
  useEffect(() => {
    if (locale !== "en") void DAYJS_LOCALES[locale]().then(() => setNamesLoaded(true));
  }, [locale]);
  if (!hydrated) {
    return <Input ref={native} id={id} name={name} type="date" defaultValue={defaultValue} status={status} />;
  }
  return (
    <>
      <DatePicker
        id={id}
        className="day-field"
        value={dayOf(value)}
        format={DAY}
        status={status}
        disabledDate={future ? (day) => day.isBefore(dayjs(), "day") : undefined}
        onChange={(day) => {
          flushSync(() => setValue(day ? day.format(DAY) : ""));
          const form = hidden.current?.form;
          if (form && onPicked) onPicked(form);
        }}
      />
      <input ref={hidden} type="hidden" name={name} value={value} />
    </>
  );
}
