import { useSyncExternalStore, type ReactNode } from "react";
import { clsx } from "clsx";
import CheckCircleFilled from "@ant-design/icons-svg/es/asn/CheckCircleFilled";
import CloseCircleFilled from "@ant-design/icons-svg/es/asn/CloseCircleFilled";
import CloseOutlined from "@ant-design/icons-svg/es/asn/CloseOutlined";
import ExclamationCircleFilled from "@ant-design/icons-svg/es/asn/ExclamationCircleFilled";
import InfoCircleFilled from "@ant-design/icons-svg/es/asn/InfoCircleFilled";
import { Icon } from "#app/components/ui/icon.tsx";
import { ANTD_CSS_VAR_KEY, messageConfig } from "#app/components/theme.ts";

// Toasts (Ant Design's messages: top centre, 3 s, five at most, closed by a click) and persistent notices (bottom
// right, closed by their button or their close icon), kept outside React's tree so any code can raise one, and drawn
// with Ant Design's classes by its stylesheet. They need no provider, so every page has them.

type ToastType = "success" | "error" | "info" | "warning";
const TOAST_ICONS = {
  success: CheckCircleFilled,
  error: CloseCircleFilled,
  info: InfoCircleFilled,
  warning: ExclamationCircleFilled,
};

interface ToastItem {
  key: string;
  type: ToastType;
  content: ReactNode;
}

export interface NoticeItem {
  key: string;
  title: ReactNode;
  description?: ReactNode;
  actions?: ReactNode;
  className?: string;
}

let toasts: ToastItem[] = [];
let notices: NoticeItem[] = [];
let keys = 0;
const listeners = new Set<() => void>();
const timers = new Map<string, ReturnType<typeof setTimeout>>();
const EMPTY = { toasts: [] as ToastItem[], notices: [] as NoticeItem[] };
let snapshot = EMPTY;

function emit() {
  snapshot = toasts.length || notices.length ? { toasts, notices } : EMPTY;
  for (const listener of listeners) listener();
}
const subscribe = (listener: () => void) => {
  listeners.add(listener);
  return () => listeners.delete(listener);
};

export function closeToast(key: string) {
  clearTimeout(timers.get(key));
  timers.delete(key);
  toasts = toasts.filter((t) => t.key !== key);
  emit();
}

function open(type: ToastType, content: ReactNode) {
  const key = `toast-${++keys}`;
  toasts = [...toasts, { key, type, content }].slice(-messageConfig.maxCount);
  timers.set(
    key,
    setTimeout(() => closeToast(key), messageConfig.duration * 1000),
  );
  emit();
  return key;
}

/** Raises a toast from anywhere in the browser. */
export const toast = {
  success: (content: ReactNode) => open("success", content),
  error: (content: ReactNode) => open("error", content),
  info: (content: ReactNode) => open("info", content),
  warning: (content: ReactNode) => open("warning", content),
};

/** Shows a persistent notice; one with the same key replaces it. */
export function showNotice(notice: NoticeItem) {
  notices = [...notices.filter((n) => n.key !== notice.key), notice];
  emit();
}

export function closeNotice(key: string) {
  notices = notices.filter((n) => n.key !== key);
  emit();
}

const container = (placement: string, kind: "message" | "notification") =>
  `ant-${kind} ant-${kind}-list ant-${kind}-${placement} ${ANTD_CSS_VAR_KEY} ant-${kind}-css-var toast-list`;

/** Where toasts and notices appear; rendered once, by the root. */
export function Toaster({ closeLabel }: { closeLabel: string }) {
  const state = useSyncExternalStore(
    subscribe,
    () => snapshot,
    () => EMPTY,
  );
  return (
    <>
      {state.toasts.length > 0 && (
        <div
          className={container("top", "message")}
          style={{ "--notification-top": `${messageConfig.top}px` } as object}
        >
          <div className="ant-message-list-content">
            {state.toasts.map((t, index) => (
              <div
                key={t.key}
                role="alert"
                data-notification-index={index}
                className={`ant-message-notice ant-message-notice-${t.type}`}
                onClick={() => closeToast(t.key)}
              >
                <div className={`ant-message-notice-wrapper ant-message-${t.type}`}>
                  <div className={`ant-message-notice-icon ant-message-notice-icon-${t.type}`}>
                    <Icon icon={TOAST_ICONS[t.type]} />
                  </div>
                  <div className="ant-message-notice-title">{t.content}</div>
                </div>
              </div>
            ))}
          </div>
        </div>
      )}
      {state.notices.length > 0 && (
        <div className={container("bottomRight", "notification")}>
          <div className="ant-notification-list-content">
            {state.notices.map((n, index) => (
              <div
                key={n.key}
                role="alert"
                data-notification-index={index}
                className={clsx("ant-notification-notice", "ant-notification-notice-closable", n.className)}
              >
                <div className="ant-notification-notice-section">
                  <div className="ant-notification-notice-title">{n.title}</div>
                  {n.description !== undefined && (
                    <div className="ant-notification-notice-description">{n.description}</div>
                  )}
                </div>
                {n.actions && <div className="ant-notification-notice-actions">{n.actions}</div>}
                <button
                  type="button"
                  className="ant-notification-notice-close"
                  aria-label={closeLabel}
                  onClick={() => closeNotice(n.key)}
                >
                  <Icon icon={CloseOutlined} className="ant-notification-close-icon" />
                </button>
              </div>
            ))}
          </div>
        </div>
      )}
    </>
  );
}
