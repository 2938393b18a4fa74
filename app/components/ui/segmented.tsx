import { useId, useState, type ReactNode } from "react";
import { clsx } from "clsx";
import { ANTD_CSS_VAR_KEY } from "#app/components/theme.ts";

export interface SegmentedOption<T extends string> {
  value: T;
  icon?: ReactNode;
  title?: string;
  label: ReactNode;
}

/**
 * Ant Design's segmented control as markup its stylesheet draws: native radio buttons, so the arrow keys and screen
 * readers work as they do for any radio group.
 */
export function Segmented<T extends string>({
  options,
  value,
  onChange,
  size,
  "aria-label": label,
}: {
  options: SegmentedOption<T>[];
  value: T;
  onChange(value: T): void;
  size?: "small" | "large";
  "aria-label"?: string;
}) {
  const name = useId();
  const [keyboardFocus, setKeyboardFocus] = useState(false);
  return (
    <div
      role="radiogroup"
      aria-label={label}
      aria-orientation="horizontal"
      className={clsx(
        "ant-segmented",
        size === "small" && "ant-segmented-sm",
        size === "large" && "ant-segmented-lg",
        ANTD_CSS_VAR_KEY,
      )}
    >
      <div className="ant-segmented-group">
        {options.map((option) => {
          const selected = option.value === value;
          const classes = clsx(
            "ant-segmented-item",
            selected && "ant-segmented-item-selected",
            selected && "ant-segmented-item-selected-text",
            selected && keyboardFocus && "ant-segmented-item-focused",
          );
          return (
            <label key={option.value} className={classes}>
              <input
                name={name}
                className="ant-segmented-item-input"
                type="radio"
                checked={selected}
                onChange={() => onChange(option.value)}
                onFocus={(e) => setKeyboardFocus(e.currentTarget.matches(":focus-visible"))}
                onBlur={() => setKeyboardFocus(false)}
              />
              <div className="ant-segmented-item-label" title={option.title}>
                {option.icon ? (
                  <>
                    <span className="ant-segmented-item-icon">{option.icon}</span>
                    <span>{option.label}</span>
                  </>
                ) : (
                  option.label
                )}
              </div>
            </label>
          );
        })}
      </div>
    </div>
  );
}
