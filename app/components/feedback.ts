import { App } from "antd";
import type { ReactNode } from "react";
import { useMemo } from "react";

let keys = 0;

/** Toasts that close by themselves (3 s) or when clicked. */
export function useToast() {
  const { message } = App.useApp();
  return useMemo(() => {
    const open = (type: "success" | "error" | "info" | "warning", content: ReactNode) => {
      const key = `toast-${++keys}`;
      void message.open({ key, type, content, onClick: () => message.destroy(key) });
    };
    return {
      success: (content: ReactNode) => open("success", content),
      error: (content: ReactNode) => open("error", content),
      info: (content: ReactNode) => open("info", content),
      warning: (content: ReactNode) => open("warning", content),
    };
  }, [message]);
}
