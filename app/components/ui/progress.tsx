import type { CSSProperties } from "react";
import { clsx } from "clsx";
import { ANTD_CSS_VAR_KEY } from "#app/components/theme.ts";

/**
 * Ant Design's line progress bar without its figure (`showInfo={false}`), as markup its stylesheet draws. A full
 * bar counts as done, as Ant Design's does.
 */
export function Progress({
  percent,
  size = "default",
  strokeColor,
  className,
  "aria-hidden": hidden,
}: {
  percent: number;
  size?: "small" | "default";
  strokeColor?: string;
  className?: string;
  "aria-hidden"?: boolean;
}) {
  const value = Math.max(0, Math.min(100, percent));
  const height = size === "small" ? 6 : 8;
  const track: CSSProperties & Record<`--${string}`, string> = { width: `${value}%`, height: `${height}px` };
  if (strokeColor) Object.assign(track, { "--progress-line-stroke-color": strokeColor, background: strokeColor });
  return (
    <div
      className={clsx(
        "ant-progress",
        value >= 100 ? "ant-progress-status-success" : "ant-progress-status-normal",
        "ant-progress-line",
        "ant-progress-line-align-end",
        "ant-progress-line-position-outer",
        size === "small" && "ant-progress-small",
        className,
        ANTD_CSS_VAR_KEY,
      )}
      role="progressbar"
      aria-valuenow={value}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-hidden={hidden}
    >
      <div className="ant-progress-body" style={{ width: "100%" }}>
        <div className="ant-progress-rail" style={{ height: `${height}px` }}>
          <div className="ant-progress-track" style={track} />
        </div>
      </div>
    </div>
  );
}
