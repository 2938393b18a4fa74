import { useEffect, useRef, useState, type ReactNode } from "react";
import { clsx } from "clsx";
import CloseOutlined from "@ant-design/icons-svg/es/asn/CloseOutlined";
import VerticalAlignTopOutlined from "@ant-design/icons-svg/es/asn/VerticalAlignTopOutlined";
import { buttonClassName } from "#app/components/ui/button.tsx";
import { Icon } from "#app/components/ui/icon.tsx";
import { ANTD_CSS_VAR_KEY, BACK_TO_TOP } from "#app/components/theme.ts";

// Menus, the phone drawer and the back-to-top button without a script library: a menu is a <details>, the drawer a
// popover, so both open before the page's scripts have arrived; once they have, a click outside or Escape closes.

/** Closes an open <details> on a click outside it and on Escape (focus back to its button); `closeMenu` for the rest. */
function useDisclosure() {
  const ref = useRef<HTMLDetailsElement>(null);
  useEffect(() => {
    const details = ref.current;
    if (!details) return;
    const close = () => {
      details.open = false;
    };
    const onPointer = (event: PointerEvent) => {
      if (details.open && !details.contains(event.target as Node)) close();
    };
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== "Escape" || !details.open) return;
      close();
      details.querySelector("summary")?.focus();
    };
    document.addEventListener("pointerdown", onPointer);
    document.addEventListener("keydown", onKey);
    return () => {
      document.removeEventListener("pointerdown", onPointer);
      document.removeEventListener("keydown", onKey);
    };
  }, []);
  const closeMenu = () => {
    if (ref.current) ref.current.open = false;
  };
  return { ref, closeMenu };
}

export interface MenuEntry {
  key: string;
  /** A link or a form's button, given `role="menuitem"` and the class that makes it fill the row. */
  render(closeMenu: () => void): ReactNode;
  icon?: ReactNode;
  selected?: boolean;
  danger?: boolean;
}

export type MenuItem = MenuEntry | { key: string; group: ReactNode } | { key: string; divider: true };

/**
 * A button that opens a menu below it, drawn like Ant Design's dropdown. `trigger` holds the button's classes and
 * content (it becomes the <summary>).
 */
export function MenuButton({
  trigger,
  triggerClassName,
  label,
  items,
  placement = "bottomLeft",
  testId,
}: {
  trigger: ReactNode;
  triggerClassName: string;
  label: string;
  items: MenuItem[];
  placement?: "bottomLeft" | "bottomRight";
  testId?: string;
}) {
  const { ref, closeMenu } = useDisclosure();
  return (
    <details ref={ref} className="menu-button">
      <summary className={triggerClassName} aria-label={label} aria-haspopup="menu" data-testid={testId}>
        {trigger}
      </summary>
      <div
        className={`ant-dropdown ${ANTD_CSS_VAR_KEY} ant-dropdown-css-var ant-dropdown-placement-${placement} menu-popup menu-popup-${placement}`}
      >
        <ul
          className={`ant-dropdown-menu ant-dropdown-menu-root ant-dropdown-menu-vertical ant-dropdown-menu-light ${ANTD_CSS_VAR_KEY} ant-dropdown-menu-css-var`}
          role="menu"
          aria-label={label}
        >
          {items.map((item) => {
            if ("divider" in item)
              return <li key={item.key} className="ant-dropdown-menu-item-divider" role="separator" />;
            if ("group" in item) {
              return (
                <li key={item.key} className="ant-dropdown-menu-item-group" role="presentation">
                  <div className="ant-dropdown-menu-item-group-title">{item.group}</div>
                </li>
              );
            }
            const classes = clsx(
              "ant-dropdown-menu-item",
              item.selected && "ant-dropdown-menu-item-selected",
              item.danger && "ant-dropdown-menu-item-danger",
              !item.icon && "ant-dropdown-menu-item-only-child",
            );
            return (
              <li key={item.key} className={classes} role="none">
                {item.icon}
                <span className="ant-dropdown-menu-title-content">{item.render(closeMenu)}</span>
              </li>
            );
          })}
        </ul>
      </div>
    </details>
  );
}

/** Closes the drawer with this id (after following one of its links, say). */
export const closeDrawer = (id: string) => document.getElementById(id)?.hidePopover();

/**
 * A panel that slides in from the right, drawn like Ant Design's drawer. A popover: the button that names it with
 * `popoverTarget` opens it with or without scripts; Escape and the close button close it.
 */
export function Drawer({
  id,
  title,
  closeLabel,
  width,
  className,
  children,
}: {
  id: string;
  title: ReactNode;
  closeLabel: string;
  width: number;
  className?: string;
  children: ReactNode;
}) {
  return (
    <div
      id={id}
      popover="auto"
      className={`ant-drawer ant-drawer-right ${ANTD_CSS_VAR_KEY} ant-drawer-open drawer-popover`}
    >
      <div className="ant-drawer-mask" onClick={() => closeDrawer(id)} />
      <div className="ant-drawer-content-wrapper" style={{ width }}>
        <div
          className={clsx("ant-drawer-section", className)}
          role="dialog"
          aria-labelledby={`${id}-title`}
          aria-modal="true"
        >
          <div className="ant-drawer-header">
            <div className="ant-drawer-header-title">
              <button
                type="button"
                className="ant-drawer-close"
                aria-label={closeLabel}
                popoverTarget={id}
                popoverTargetAction="hide"
              >
                <Icon icon={CloseOutlined} />
              </button>
              <div className="ant-drawer-title" id={`${id}-title`}>
                {title}
              </div>
            </div>
          </div>
          <div className="ant-drawer-body">{children}</div>
        </div>
      </div>
    </div>
  );
}

/** Scrolls to the top in `BACK_TO_TOP.durationMs`, easing in and out. */
function scrollToTop() {
  const from = window.scrollY;
  const start = performance.now();
  const step = (now: number) => {
    const t = Math.min(1, (now - start) / BACK_TO_TOP.durationMs);
    const eased = t < 0.5 ? 4 * t * t * t : 1 - (-2 * t + 2) ** 3 / 2;
    window.scrollTo(0, Math.round(from * (1 - eased)));
    if (t < 1) requestAnimationFrame(step);
  };
  requestAnimationFrame(step);
}

/** The round button bottom right that appears once the page is scrolled down, and scrolls back to the top. */
export function BackToTop({ label }: { label: string }) {
  const [visible, setVisible] = useState(false);
  useEffect(() => {
    const update = () => setVisible(window.scrollY >= BACK_TO_TOP.visibilityHeight);
    update();
    window.addEventListener("scroll", update, { passive: true });
    return () => window.removeEventListener("scroll", update);
  }, []);
  if (!visible) return null;
  return (
    <button
      aria-label={label}
      title={label}
      type="button"
      className={buttonClassName({
        shape: "circle",
        size: "large",
        className:
          "ant-float-btn-css-var ant-float-btn ant-float-btn-default ant-float-btn-circle ant-float-btn-individual ant-float-btn-icon-only",
      })}
      onClick={scrollToTop}
    >
      <span className="ant-btn-icon ant-float-btn-icon">
        <Icon icon={VerticalAlignTopOutlined} />
      </span>
    </button>
  );
}
