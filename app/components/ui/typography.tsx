import type { HTMLAttributes, ReactNode } from "react";
import { clsx } from "clsx";
import { ANTD_CSS_VAR_KEY } from "#app/components/theme.ts";

type Tone = "secondary" | "success" | "warning" | "danger";

const classes = (tone: Tone | undefined, className: string | undefined) =>
  clsx("ant-typography", tone && `ant-typography-${tone}`, className, ANTD_CSS_VAR_KEY);

interface Props extends HTMLAttributes<HTMLElement> {
  type?: Tone;
  children?: ReactNode;
}

/** Ant Design's headings, paragraphs and text, as markup its stylesheet draws. */
export function Title({ level = 1, type, className, ...rest }: Props & { level?: 1 | 2 | 3 | 4 | 5 }) {
  const Tag = `h${level}` as const;
  return <Tag className={classes(type, className)} {...rest} />;
}

export function Paragraph({ type, className, ...rest }: Props) {
  return <div className={classes(type, className)} {...rest} />;
}

export function Text({ type, strong, className, children, ...rest }: Props & { strong?: boolean }) {
  return (
    <span className={classes(type, className)} {...rest}>
      {strong ? <strong>{children}</strong> : children}
    </span>
  );
}
