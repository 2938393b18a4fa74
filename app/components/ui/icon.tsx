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

const drawing = (icon: IconDefinition) =>
  typeof icon.icon === "function" ? icon.icon("currentColor", "#e6f4ff") : icon.icon;
const spriteId = (icon: IconDefinition) => `icon-${icon.name}`;

/**
 * The drawings of icons that a page shows more than once (the language and theme controls are in the header, the
 * phone drawer and the footer), written once; an `Icon` with `shared` points at its drawing here. The root renders it
 * on every page.
 */
export function IconSprite({ icons }: { icons: readonly IconDefinition[] }) {
  return (
    <svg className="icon-sprite" aria-hidden="true" focusable="false">
      <defs>
        {icons.map((icon) => {
          const node = drawing(icon);
          return (
            <symbol key={icon.name} id={spriteId(icon)} viewBox={node.attrs.viewBox}>
              {node.children?.map((child, i) => draw(child, i))}
            </symbol>
          );
        })}
      </defs>
    </svg>
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
  shared,
  "aria-hidden": hidden,
}: {
  icon: IconDefinition;
  className?: string;
  spin?: boolean;
  /** Drawn from the page's `IconSprite`, which must hold it. */
  shared?: boolean;
  "aria-hidden"?: boolean;
}) {
  const classes = clsx("anticon", `anticon-${icon.name}`, spin && "anticon-spin", className);
  const svg = {
    "data-icon": icon.name,
    width: "1em",
    height: "1em",
    fill: "currentColor",
    "aria-hidden": "true" as const,
  };
  return (
    <span role="img" aria-label={icon.name} aria-hidden={hidden} className={classes}>
      {shared ? (
        // No viewBox here: the symbol's own maps the drawing onto the 1em square.
        <svg focusable="false" {...svg}>
          <use href={`#${spriteId(icon)}`} />
        </svg>
      ) : (
        draw(drawing(icon), undefined, svg)
      )}
    </span>
  );
}
