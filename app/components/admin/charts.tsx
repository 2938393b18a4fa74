import { useTranslation } from "react-i18next";

/** A part of a column or a bar: its value, and the tone that colours it (and names it in the legend). */
export interface Segment {
  value: number;
  tone: "primary" | "success" | "error" | "muted";
}

export interface Column {
  key: string;
  /** Under the column (only some are shown when there are many). */
  label: string;
  /** What a screen reader and a pointer's tooltip say of it: the time and every value. */
  description: string;
  segments: Segment[];
}

const total = (segments: Segment[]) => segments.reduce((sum, s) => sum + s.value, 0);
/** A column of at least a sliver, so that a small value next to a large one stays visible. */
const share = (value: number, max: number) => (value === 0 ? 0 : Math.max(1.5, (value / max) * 100));

/**
 * Columns over time, stacked by segment: plain markup sized in percent, so it is drawn on the server, costs no
 * script, follows the theme's colours and fits any width. The scale runs from zero to the tallest column, which is
 * named above the chart; each column names its values for screen readers and in its tooltip.
 */
export function ColumnChart({
  title,
  columns,
  formatMax,
  legend,
}: {
  title: string;
  columns: Column[];
  formatMax: (value: number) => string;
  legend?: { tone: Segment["tone"]; label: string }[];
}) {
  const { t } = useTranslation("admin");
  const max = Math.max(0, ...columns.map((c) => total(c.segments)));
  // About six labels along the bottom, whatever the number of columns; in a narrow chart only the first, the middle
  // and the last of them (the "minor" ones are hidden by a container query). Each is aligned so that it stays inside:
  // the first third's start under their column, the middle third's centred, the last third's end there.
  const every = Math.max(1, Math.ceil(columns.length / 6));
  const labelled = columns.map((_, i) => i).filter((i) => i % every === 0);
  const major = new Set([labelled[0], labelled[Math.floor(labelled.length / 2)], labelled.at(-1)]);
  const labelClass = (i: number) =>
    [
      "chart-label",
      i < columns.length / 3 ? "start" : i < (2 * columns.length) / 3 ? "center" : "end",
      major.has(i) ? "" : "minor",
    ]
      .filter(Boolean)
      .join(" ");
  return (
    <figure className="chart">
      <figcaption className="chart-head">
        <span className="chart-title">{title}</span>
        <span className="chart-max">{max > 0 ? t("overview.charts.max", { value: formatMax(max) }) : null}</span>
      </figcaption>
      {max === 0 ? (
        <p className="chart-empty">{t("overview.charts.empty")}</p>
      ) : (
        <ol className="chart-columns" style={{ gridTemplateColumns: `repeat(${columns.length}, minmax(0, 1fr))` }}>
          {columns.map((c, i) => (
            <li key={c.key} className="chart-column" title={c.description}>
              <span className="chart-stack" aria-hidden="true">
                <Parts segments={c.segments} max={max} axis="height" />
              </span>
              <span className={labelClass(i)} aria-hidden="true">
                {i % every === 0 ? c.label : ""}
              </span>
              <span className="sr-only">{c.description}</span>
            </li>
          ))}
        </ol>
      )}
      {legend && max > 0 && <Legend items={legend} />}
    </figure>
  );
}

export interface Bar {
  key: string;
  label: React.ReactNode;
  /** The figures written after the bar. */
  value: string;
  segments: Segment[];
}

/** Horizontal bars, one per row, scaled to the longest: a breakdown (by model, by status) read at a glance. */
export function BarList({
  title,
  bars,
  legend,
}: {
  title: string;
  bars: Bar[];
  legend?: { tone: Segment["tone"]; label: string }[];
}) {
  const { t } = useTranslation("admin");
  const max = Math.max(0, ...bars.map((b) => total(b.segments)));
  return (
    <figure className="chart">
      <figcaption className="chart-head">
        <span className="chart-title">{title}</span>
      </figcaption>
      {max === 0 ? (
        <p className="chart-empty">{t("overview.charts.empty")}</p>
      ) : (
        <ul className="chart-bars">
          {bars.map((b) => (
            <li key={b.key} className="chart-bar-row">
              <span className="chart-bar-head">
                <span className="chart-bar-label">{b.label}</span>
                <span className="chart-bar-value">{b.value}</span>
              </span>
              <span className="chart-bar" aria-hidden="true">
                <Parts segments={b.segments} max={max} axis="width" />
              </span>
            </li>
          ))}
        </ul>
      )}
      {legend && max > 0 && <Legend items={legend} />}
    </figure>
  );
}

/** A column's or a bar's parts, each as tall (or as wide) as its share of the chart's largest total. */
function Parts({ segments, max, axis }: { segments: Segment[]; max: number; axis: "height" | "width" }) {
  return segments.map((s, j) =>
    s.value > 0 ? (
      <span key={j} className={`chart-part tone-${s.tone}`} style={{ [axis]: `${share(s.value, max)}%` }} />
    ) : null,
  );
}

function Legend({ items }: { items: { tone: Segment["tone"]; label: string }[] }) {
  return (
    <ul className="chart-legend" aria-hidden="true">
      {items.map((item) => (
        <li key={item.tone}>
          <span className={`chart-swatch tone-${item.tone}`} />
          {item.label}
        </li>
      ))}
    </ul>
  );
}
