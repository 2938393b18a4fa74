import type { HTMLAttributes, ReactNode } from "react";
import { clsx } from "clsx";
import CheckCircleFilled from "@ant-design/icons-svg/es/asn/CheckCircleFilled";
import CloseCircleFilled from "@ant-design/icons-svg/es/asn/CloseCircleFilled";
import ExclamationCircleFilled from "@ant-design/icons-svg/es/asn/ExclamationCircleFilled";
import InfoCircleFilled from "@ant-design/icons-svg/es/asn/InfoCircleFilled";
import { Icon } from "#app/components/ui/icon.tsx";
import { ANTD_CSS_VAR_KEY } from "#app/components/theme.ts";

// Ant Design's markup and classes for the small display components of the public pages: its stylesheet draws them.

export function Card({
  variant = "outlined",
  title,
  className,
  children,
  ...rest
}: HTMLAttributes<HTMLDivElement> & { variant?: "outlined" | "borderless"; title?: ReactNode }) {
  return (
    <div
      className={clsx("ant-card", variant === "outlined" && "ant-card-bordered", className, ANTD_CSS_VAR_KEY)}
      {...rest}
    >
      {title !== undefined && (
        <div className="ant-card-head">
          <div className="ant-card-head-wrapper">
            <div className="ant-card-head-title">{title}</div>
          </div>
        </div>
      )}
      <div className="ant-card-body">{children}</div>
    </div>
  );
}

export function Tag({
  color,
  className,
  children,
  ...rest
}: HTMLAttributes<HTMLSpanElement> & {
  color?: "blue" | "green" | "gold" | "red" | "purple" | "processing" | "success" | "error" | "warning";
}) {
  return (
    <span
      className={clsx("ant-tag", "ant-tag-filled", color && `ant-tag-${color}`, className, ANTD_CSS_VAR_KEY)}
      {...rest}
    >
      {children}
    </span>
  );
}

const ALERT_ICONS = {
  info: InfoCircleFilled,
  success: CheckCircleFilled,
  warning: ExclamationCircleFilled,
  error: CloseCircleFilled,
};

/** An alert with its icon, a title and an optional description (`role="alert"`, as Ant Design's). */
export function Alert({
  type,
  title,
  description,
  className,
  action,
}: {
  type: keyof typeof ALERT_ICONS;
  title: ReactNode;
  description?: ReactNode;
  className?: string;
  action?: ReactNode;
}) {
  return (
    <div
      data-show="true"
      className={clsx(
        "ant-alert",
        `ant-alert-${type}`,
        "ant-alert-outlined",
        description !== undefined && "ant-alert-with-description",
        className,
        ANTD_CSS_VAR_KEY,
      )}
      role="alert"
    >
      <span className="ant-alert-icon">
        <Icon icon={ALERT_ICONS[type]} />
      </span>
      <div className="ant-alert-section">
        <div className="ant-alert-title">{title}</div>
        {description !== undefined && <div className="ant-alert-description">{description}</div>}
      </div>
      {action && <div className="ant-alert-actions">{action}</div>}
    </div>
  );
}

export function Spin({ className }: { className?: string }) {
  return (
    <div
      className={clsx("ant-spin", "ant-spin-spinning", "ant-spin-section", className, ANTD_CSS_VAR_KEY)}
      aria-live="polite"
      aria-busy="true"
    >
      <span className="ant-spin-dot-holder">
        <span className="ant-spin-dot ant-spin-dot-spin">
          <i className="ant-spin-dot-item" />
          <i className="ant-spin-dot-item" />
          <i className="ant-spin-dot-item" />
          <i className="ant-spin-dot-item" />
        </span>
      </span>
    </div>
  );
}

export function Divider({ children }: { children?: ReactNode }) {
  if (children === undefined) {
    return <div className={clsx("ant-divider", ANTD_CSS_VAR_KEY, "ant-divider-horizontal")} role="separator" />;
  }
  return (
    <div
      className={clsx(
        "ant-divider",
        ANTD_CSS_VAR_KEY,
        "ant-divider-horizontal",
        "ant-divider-with-text",
        "ant-divider-with-text-center",
        "ant-divider-plain",
      )}
      role="separator"
    >
      <div className="ant-divider-rail ant-divider-rail-start" />
      <span className="ant-divider-inner-text">{children}</span>
      <div className="ant-divider-rail ant-divider-rail-end" />
    </div>
  );
}

/** A round picture, or the name's initial on the primary colour, as Ant Design's avatar. */
export function Avatar({
  size,
  src,
  children,
  className,
}: {
  size: number;
  src?: string;
  children?: ReactNode;
  className?: string;
}) {
  const classes = clsx(
    "ant-avatar",
    "ant-avatar-circle",
    src && "ant-avatar-image",
    ANTD_CSS_VAR_KEY,
    "ant-avatar-css-var",
    className,
  );
  return (
    <span style={{ width: size, height: size, fontSize: 18 }} className={classes}>
      {src ? <img src={src} alt="" /> : <span className="ant-avatar-string">{children}</span>}
    </span>
  );
}
