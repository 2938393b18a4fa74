import type { ButtonHTMLAttributes, ReactNode } from "react";
import { clsx } from "clsx";
import { Link } from "react-router";
import LoadingOutlined from "@ant-design/icons-svg/es/asn/LoadingOutlined";
import { Icon } from "#app/components/ui/icon.tsx";
import { ANTD_CSS_VAR_KEY } from "#app/components/theme.ts";

type Kind = "primary" | "default" | "text" | "link";

const VARIANTS: Record<Kind, { color: string; variant: string }> = {
  primary: { color: "primary", variant: "solid" },
  default: { color: "default", variant: "outlined" },
  text: { color: "default", variant: "text" },
  link: { color: "link", variant: "link" },
};

// Ant Design spaces out a label of exactly two Chinese characters (確 定) on bordered buttons; so does this one.
const TWO_CN_CHARS = /^[\u4E00-\u9FA5]{2}$/;

export interface ButtonProps extends Omit<ButtonHTMLAttributes<HTMLButtonElement>, "type"> {
  type?: Kind;
  size?: "small" | "middle" | "large";
  /** A link that looks like a button: paths of the site navigate in the page, anything else is a plain link. */
  href?: string;
  /** With `href`: load the page afresh rather than navigating within the app. */
  reloadDocument?: boolean;
  htmlType?: "button" | "submit" | "reset";
  icon?: ReactNode;
  loading?: boolean;
  danger?: boolean;
  block?: boolean;
  shape?: "circle";
}

/** The classes Ant Design gives a button; also for elements that act as one (a menu's <summary>, a popover's opener). */
export function buttonClassName({
  type = "default",
  size = "middle",
  danger = false,
  block = false,
  loading = false,
  iconOnly = false,
  spaced = false,
  shape,
  className,
}: Pick<ButtonProps, "type" | "size" | "danger" | "block" | "loading" | "shape" | "className"> & {
  iconOnly?: boolean;
  spaced?: boolean;
}) {
  const { color, variant } = VARIANTS[type];
  return clsx(
    "ant-btn",
    ANTD_CSS_VAR_KEY,
    shape && `ant-btn-${shape}`,
    `ant-btn-${type}`,
    `ant-btn-color-${danger ? "dangerous" : color}`,
    `ant-btn-variant-${variant}`,
    size === "large" && "ant-btn-lg",
    size === "small" && "ant-btn-sm",
    iconOnly && "ant-btn-icon-only",
    block && "ant-btn-block",
    danger && "ant-btn-dangerous",
    loading && "ant-btn-loading",
    spaced && "ant-btn-two-chinese-chars",
    className,
  );
}

/** Ant Design's button markup and classes, drawn by its stylesheet, without its runtime. */
export function Button({
  type = "default",
  size = "middle",
  href,
  reloadDocument = false,
  htmlType = "button",
  icon,
  loading = false,
  danger = false,
  block = false,
  shape,
  className,
  children,
  ...rest
}: ButtonProps) {
  const bordered = type !== "text" && type !== "link";
  const spaced = bordered && !icon && !loading && typeof children === "string" && TWO_CN_CHARS.test(children);
  const iconOnly = !children && Boolean(icon || loading);
  const classes = buttonClassName({ type, size, danger, block, loading, iconOnly, spaced, shape, className });
  const content = (
    <>
      {loading ? (
        <span className="ant-btn-icon ant-btn-loading-icon">
          <Icon icon={LoadingOutlined} spin />
        </span>
      ) : (
        icon && <span className="ant-btn-icon">{icon}</span>
      )}
      {children !== undefined && children !== null && children !== false && (
        <span>{spaced ? (children as string).split("").join(" ") : children}</span>
      )}
    </>
  );
  if (href !== undefined) {
    const label = rest["aria-label"];
    return href.startsWith("/") && !reloadDocument ? (
      <Link to={href} className={classes} aria-label={label} title={rest.title}>
        {content}
      </Link>
    ) : (
      <a href={href} className={classes} aria-label={label} title={rest.title}>
        {content}
      </a>
    );
  }
  return (
    <button type={htmlType} className={classes} aria-busy={loading || undefined} {...rest}>
      {content}
    </button>
  );
}
