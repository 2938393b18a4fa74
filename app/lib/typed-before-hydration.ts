import { useEffect, useRef } from "react";

/**
 * What a visitor typed into a form before the page's scripts took over. Ant Design's inputs are controlled, so
 * hydration would reset them to their server-rendered values and silently lose the typing (a real risk on a slow
 * phone); the browser's own inputs keep it, but components that follow them (a password's strength meter) have not
 * seen it. The values are noted just before hydration and put back through the inputs' own events afterwards.
 */
interface Typed {
  id: string;
  value?: string;
  checked?: boolean;
}

let typed: Typed[] = [];

const FIELDS = "form input[id], form textarea[id]";

export function rememberTypedFields(doc: Document = document) {
  typed = [];
  for (const el of doc.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>(FIELDS)) {
    if (el instanceof HTMLInputElement && (el.type === "checkbox" || el.type === "radio")) {
      if (el.checked !== el.defaultChecked) typed.push({ id: el.id, checked: el.checked });
    } else if (el.type !== "hidden" && el.type !== "file" && el.value !== el.defaultValue) {
      typed.push({ id: el.id, value: el.value });
    }
  }
}

function putBack(el: HTMLInputElement | HTMLTextAreaElement, entry: Typed) {
  if (entry.checked !== undefined) {
    // A click goes through React's handlers, so the component's state follows.
    if (el instanceof HTMLInputElement && el.checked !== entry.checked) el.click();
  } else if (entry.value !== undefined) {
    // React tracks the value it last rendered; the prototype's setter plus an input event counts as typing.
    const setter = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(el) as object, "value")?.set;
    setter?.call(el, entry.value);
    el.dispatchEvent(new Event("input", { bubbles: true }));
  }
}

const holds = (el: HTMLInputElement | HTMLTextAreaElement, entry: Typed) =>
  entry.checked !== undefined ? (el as HTMLInputElement).checked === entry.checked : el.value === entry.value;

/**
 * Puts back the typing noted for fields inside `container`. Called from an effect of a component that holds the
 * forms, once its part of the page has hydrated. Components may still render their first values again in the
 * commits that follow hydration, so each field is checked a few frames later and put back until it holds.
 */
export function restoreTypedFields(container: HTMLElement, attempts = 5) {
  const mine: Array<{ el: HTMLInputElement | HTMLTextAreaElement; entry: Typed }> = [];
  typed = typed.filter((entry) => {
    const el = container.ownerDocument.getElementById(entry.id);
    if (!el || !container.contains(el)) return true;
    if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) mine.push({ el, entry });
    return false;
  });
  // Typing after hydration wins: a field the person changes again is left alone.
  const touched = new Set<EventTarget>();
  const onInput = (event: Event) => {
    if (event.isTrusted && event.target) touched.add(event.target);
  };
  container.addEventListener("input", onInput, true);
  container.addEventListener("change", onInput, true);
  const round = (left: number, first: boolean) => {
    for (const { el, entry } of mine) {
      if (el.isConnected && !touched.has(el) && (first || !holds(el, entry))) putBack(el, entry);
    }
    if (left > 0) setTimeout(() => round(left - 1, false), 50);
    else {
      container.removeEventListener("input", onInput, true);
      container.removeEventListener("change", onInput, true);
    }
  };
  if (mine.length > 0) round(attempts, true);
}

/** Restores, once hydrated, what was typed into the forms inside the returned ref's element. */
export function useRestoreTypedFields<T extends HTMLElement>() {
  const ref = useRef<T>(null);
  useEffect(() => {
    if (ref.current) restoreTypedFields(ref.current);
  }, []);
  return ref;
}
