import { useTranslation } from "react-i18next";
import { formatDayMonth, formatNumber } from "#common/format.ts";
import type { Locale } from "#common/locales.ts";

const W = 600;
const H = 160;
const PAD_BOTTOM = 22;

/**
 * Credits used per day as bars: a drawing for the eye (each bar names its day and figure on hover) and the same
 * figures as a table for screen readers. Drawn here rather than with a charting library: thirty bars do not
 * justify a hundred kilobytes of script.
 */
export function UsageChart({ days, locale }: { days: { date: string; credits: number }[]; locale: Locale }) {
  const { t } = useTranslation("dashboard");
  const max = Math.max(1, ...days.map((d) => d.credits));
  const slot = W / Math.max(1, days.length);
  const bar = Math.max(2, slot * 0.66);
  const plot = H - PAD_BOTTOM;
  const ticks = days.length > 0 ? [0, Math.floor((days.length - 1) / 2), days.length - 1] : [];
  return (
    <figure className="usage-chart">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={t("home.usageChart")} preserveAspectRatio="none">
        <line x1={0} x2={W} y1={plot} y2={plot} className="usage-axis" />
        {days.map((d, i) => {
          const h = d.credits === 0 ? 0 : Math.max(2, (d.credits / max) * (plot - 8));
          return (
            <rect
              key={d.date}
              x={i * slot + (slot - bar) / 2}
              y={plot - h}
              width={bar}
              height={h}
              rx={2}
              className="usage-bar"
            >
              <title>{`${formatDayMonth(locale, d.date)}: ${t("home.usageDay", { formatted: formatNumber(locale, d.credits) })}`}</title>
            </rect>
          );
        })}
        {ticks.map((i) => (
          <text
            key={i}
            x={Math.min(W - 4, Math.max(4, i * slot + slot / 2))}
            y={H - 6}
            textAnchor={i === 0 ? "start" : i === days.length - 1 ? "end" : "middle"}
            className="usage-tick"
          >
            {formatDayMonth(locale, days[i]!.date)}
          </text>
        ))}
      </svg>
      {/* A table is laid out whole whatever its own size, so the one box that hides it is a wrapper around it. */}
      <div className="sr-only">
        <table>
          <caption>{t("home.usageChart")}</caption>
          <tbody>
            {days.map((d) => (
              <tr key={d.date}>
                <th scope="row">{formatDayMonth(locale, d.date)}</th>
                <td>{formatNumber(locale, d.credits)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}
