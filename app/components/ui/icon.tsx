import { createElement, type ReactNode } from "react";
import { clsx } from "clsx";
import type { AbstractNode, IconDefinition } from "@ant-design/icons-svg/lib/types";

/** `fill-rule` → `fillRule`: the icon data is written as SVG attributes, React wants properties. */
const reactName = (name: string) => name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

function draw(node: AbstractNode, key?: number, extra?: Record<string, string>): ReactNode {
  const props: Record<string, unknown> = { key };
  for (const [name, value] of Object.entries(node.attrs)) props[reactName(name)] = value;
  Object.assign(props, extra);
  return createElement(
    node.tag,
    props,
    node.children?.map((child, i) => draw(child, i)),
  );
}

/**
 * One icon of Ant Design's set, drawn from its data alone (`@ant-design/icons-svg/es/asn/<Name>`), with the markup
 * and classes `@ant-design/icons` gives it, so the same stylesheet draws it the same way without the library.
 */
export function Icon({
  icon,
  className,
  spin,
  "aria-hidden": hidden,
}: {
  icon: IconDefinition;
  className?: string;
  spin?: boolean;
  "aria-hidden"?: boolean;
}) {
  const node = typeof icon.icon === "function" ? icon.icon("currentColor", "#e6f4ff") : icon.icon;
  const classes = clsx("anticon", `anticon-${icon.name}`, spin && "anticon-spin", className);
  return (
    <span role="img" aria-label={icon.name} aria-hidden={hidden} className={classes}>
      {draw(node, undefined, {
        "data-icon": icon.name,
        width: "1em",
        height: "1em",
        fill: "currentColor",
        "aria-hidden": "true",
      })}
    </span>
  );
}
