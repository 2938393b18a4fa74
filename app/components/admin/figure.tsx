import { useTranslation } from "react-i18next";
import { formatNumber } from "#common/format.ts";
import { isLocale } from "#common/locales.ts";

/** Whether a rise is good news (sign-ups), bad news (failures, refunds) or neither (what is outstanding). */
export type Direction = "up" | "down" | "neutral";

/**
 * One figure of the overview: its name, its value, what it means, and how it moved from the period before
 * (an arrow and a percentage, coloured by whether that is good news, and said in words to screen readers).
 */
export function Figure({
  label,
  value,
  hint,
  current,
  previous,
  good = "up",
  testId,
}: {
  label: string;
  value: React.ReactNode;
  hint?: React.ReactNode;
  /** The numbers compared; leave them out for a figure without a previous period. */
  current?: number | null;
  previous?: number | null;
  good?: Direction;
  testId?: string;
}) {
  return (
    <div className="overview-figure" data-testid={testId}>
      <span className="overview-figure-label">{label}</span>
      <span className="overview-figure-value">{value}</span>
      {current !== undefined && previous !== undefined && <Change current={current} previous={previous} good={good} />}
      {hint && <span className="overview-figure-hint">{hint}</span>}
    </div>
  );
}

function Change({ current, previous, good }: { current: number | null; previous: number | null; good: Direction }) {
  const { t, i18n } = useTranslation("admin");
  const locale = isLocale(i18n.language) ? i18n.language : "en";
  if (current === null || previous === null) return <span className="overview-change">—</span>;
  if (current === previous) return <span className="overview-change">{t("overview.change.same")}</span>;
  const rising = current > previous;
  const tone = good === "neutral" ? "" : rising === (good === "up") ? " good" : " bad";
  const arrow = rising ? "▲" : "▼";
  if (previous === 0)
    return (
      <span className={`overview-change${tone}`}>
        <span aria-hidden="true">{arrow} </span>
        {t("overview.change.fromNothing")}
      </span>
    );
  const ratio = Math.abs(current - previous) / Math.abs(previous);
  // Two significant digits for a small change (0.04 %), whole percents for a large one (266 %).
  const percent = formatNumber(
    locale,
    ratio,
    ratio < 0.1 ? { style: "percent", maximumSignificantDigits: 2 } : { style: "percent", maximumFractionDigits: 0 },
  );
  return (
    <span className={`overview-change${tone}`}>
      <span aria-hidden="true">
        {arrow} {percent}
      </span>
      <span className="sr-only">{t(rising ? "overview.change.up" : "overview.change.down", { value: percent })}</span>
    </span>
  );
}
