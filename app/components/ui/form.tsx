import {
  createContext,
  useContext,
  useLayoutEffect,
  useRef,
  useState,
  type InputHTMLAttributes,
  type KeyboardEvent,
  type ReactNode,
  type SyntheticEvent,
} from "react";
import { clsx } from "clsx";
import EyeInvisibleOutlined from "@ant-design/icons-svg/es/asn/EyeInvisibleOutlined";
import EyeOutlined from "@ant-design/icons-svg/es/asn/EyeOutlined";
import { Icon } from "#app/components/ui/icon.tsx";
import { ANTD_CSS_VAR_KEY } from "#app/components/theme.ts";

// Ant Design's form item, inputs and checkbox as markup its stylesheet draws. The fields are the browser's own
// (uncontrolled, with `defaultValue`): a form posts and keeps what was typed before the page's scripts run.

type Status = "error";
type Size = "small" | "middle" | "large";

/** Set by a form item: the inputs inside take its status, a checkbox its spacing, as Ant Design's do. */
const FormItemContext = createContext<{ status?: Status } | null>(null);

const SIZE_CLASS: Record<Size, string | undefined> = { small: "sm", middle: undefined, large: "lg" };

/**
 * One field of a vertical form: a label (with Ant Design's required mark), the control, then a message shown as
 * an error and any extra text. As in Ant Design, the message takes the place of the item's bottom margin, so that
 * showing it moves nothing below: the extra text's height is measured once mounted, as Ant Design does.
 */
export function FormItem({
  label,
  htmlFor,
  required = false,
  error,
  extra,
  className,
  children,
}: {
  label?: ReactNode;
  htmlFor?: string;
  required?: boolean;
  error?: ReactNode;
  extra?: ReactNode;
  className?: string;
  children: ReactNode;
}) {
  const hasError = error !== undefined && error !== null && error !== false;
  const hasExtra = extra !== undefined && extra !== null && extra !== false;
  const extraBox = useRef<HTMLDivElement>(null);
  const [extraHeight, setExtraHeight] = useState(0);
  useLayoutEffect(() => {
    setExtraHeight(extraBox.current?.clientHeight ?? 0);
  }, [extra]);
  return (
    <div
      className={clsx(
        "ant-form-item",
        className,
        ANTD_CSS_VAR_KEY,
        "ant-form-css-var",
        hasError && ["ant-form-item-with-help", "ant-form-item-has-error"],
        "ant-form-item-vertical",
      )}
    >
      <div className={clsx("ant-row", "ant-form-item-row", ANTD_CSS_VAR_KEY)}>
        {label !== undefined && (
          <div className={clsx("ant-col", "ant-form-item-label", ANTD_CSS_VAR_KEY)}>
            <label
              htmlFor={htmlFor}
              className={clsx(required && "ant-form-item-required")}
              title={typeof label === "string" ? label : undefined}
            >
              {label}
            </label>
          </div>
        )}
        <div className={clsx("ant-col", "ant-form-item-control", ANTD_CSS_VAR_KEY)}>
          <div className="ant-form-item-control-input">
            <div className="ant-form-item-control-input-content">
              <FormItemContext.Provider value={{ status: hasError ? "error" : undefined }}>
                {children}
              </FormItemContext.Provider>
            </div>
          </div>
          {(hasError || hasExtra) && (
            <div
              className="ant-form-item-additional"
              style={hasError ? { minHeight: `calc(var(--ant-form-item-margin-bottom) + ${extraHeight}px)` } : {}}
            >
              {hasError && (
                <div
                  className={clsx(
                    "ant-form-item-explain",
                    ANTD_CSS_VAR_KEY,
                    "ant-form-css-var",
                    "ant-form-item-explain-connected",
                  )}
                >
                  <div className="ant-form-item-explain-error">{error}</div>
                </div>
              )}
              {hasExtra && (
                <div className="ant-form-item-extra" ref={extraBox}>
                  {extra}
                </div>
              )}
            </div>
          )}
        </div>
      </div>
      {hasError && (
        <div
          className="ant-form-item-margin-offset"
          style={{ marginBottom: "calc(-1 * var(--ant-form-item-margin-bottom))" }}
        />
      )}
    </div>
  );
}

export interface InputProps extends Omit<InputHTMLAttributes<HTMLInputElement>, "size" | "type"> {
  type?: "text" | "email";
  size?: Size;
  status?: Status;
}

/** Ant Design's outlined text input: a plain `<input>` with its classes. */
export function Input({ type = "text", size = "middle", status, className, ...rest }: InputProps) {
  const item = useContext(FormItemContext);
  const mergedStatus = status ?? item?.status;
  const sizeClass = SIZE_CLASS[size];
  return (
    <input
      type={type}
      className={clsx(
        "ant-input",
        sizeClass && `ant-input-${sizeClass}`,
        "ant-input-outlined",
        mergedStatus && `ant-input-status-${mergedStatus}`,
        className,
        ANTD_CSS_VAR_KEY,
        "ant-input-css-var",
      )}
      {...rest}
    />
  );
}

export interface PasswordInputProps extends Omit<InputHTMLAttributes<HTMLInputElement>, "size" | "type"> {
  size?: Size;
  status?: Status;
  /** The eye's name for screen readers while the password is hidden, and while it shows. */
  showLabel: string;
  hideLabel: string;
}

const keepFocus = (event: SyntheticEvent) => event.preventDefault();

/**
 * Ant Design's password input: the field in its affix wrapper with the eye at the end. Before the scripts run it is
 * a plain password field; once hydrated the eye (a click, Enter or Space) shows and hides the password.
 */
export function PasswordInput({ size, status, showLabel, hideLabel, className, ...rest }: PasswordInputProps) {
  const item = useContext(FormItemContext);
  const mergedStatus = status ?? item?.status;
  const [visible, setVisible] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const sizeClass = size && SIZE_CLASS[size];
  const toggle = () => setVisible((v) => !v);
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      if (!event.repeat) toggle();
    }
  };
  return (
    <span
      className={clsx(
        "ant-input-affix-wrapper",
        sizeClass && `ant-input-affix-wrapper-${sizeClass}`,
        "ant-input-outlined",
        mergedStatus && `ant-input-status-${mergedStatus}`,
        "ant-input-password",
        size && `ant-input-password-${size}`,
        className,
        ANTD_CSS_VAR_KEY,
        "ant-input-css-var",
      )}
      // A click on the wrapper's padding puts the caret in the field, as Ant Design's does.
      onClick={() => input.current?.focus()}
    >
      <input
        ref={input}
        type={visible ? "text" : "password"}
        className={clsx("ant-input", sizeClass && `ant-input-${sizeClass}`)}
        {...rest}
      />
      <span className="ant-input-suffix">
        <span
          role="button"
          tabIndex={0}
          className="ant-input-password-icon"
          aria-disabled={false}
          aria-pressed={visible}
          aria-label={visible ? hideLabel : showLabel}
          // The field keeps the focus and its caret while the eye is pressed.
          onMouseDown={keepFocus}
          onMouseUp={keepFocus}
          onKeyDown={onKeyDown}
          onClick={toggle}
        >
          <Icon icon={visible ? EyeOutlined : EyeInvisibleOutlined} />
        </span>
      </span>
    </span>
  );
}

/**
 * Ant Design's checkbox around the browser's own (transparent) box, so it posts and ticks with no script. Ant
 * Design draws the tick from a class, which follows the box's changes once hydrated; `app.css` draws it from the
 * box's own state too, for a box ticked before the scripts ran.
 */
export function Checkbox({
  className,
  children,
  defaultChecked = false,
  onChange,
  ...rest
}: Omit<InputHTMLAttributes<HTMLInputElement>, "type" | "checked"> & { children?: ReactNode }) {
  const item = useContext(FormItemContext);
  const [checked, setChecked] = useState(defaultChecked);
  return (
    <label
      className={clsx(
        "ant-checkbox-wrapper",
        checked && "ant-checkbox-wrapper-checked",
        item && "ant-checkbox-wrapper-in-form-item",
        className,
        ANTD_CSS_VAR_KEY,
        "ant-checkbox-css-var",
      )}
    >
      <span className={clsx("ant-checkbox", "ant-wave-target", checked && "ant-checkbox-checked")}>
        <input
          className="ant-checkbox-input"
          type="checkbox"
          defaultChecked={defaultChecked}
          onChange={(event) => {
            setChecked(event.target.checked);
            onChange?.(event);
          }}
          {...rest}
        />
      </span>
      {children !== undefined && <span className="ant-checkbox-label">{children}</span>}
    </label>
  );
}
