import { atPath, domPath, type EarlyAction } from "#common/early-input.ts";

/**
 * What a visitor did before the page's scripts took over, kept rather than lost (see common/early-input.ts for the
 * head script that notes clicks and held-back submissions). Ant Design's inputs are controlled, so hydration would
 * reset them to their server-rendered values and silently lose the typing (a real risk on a slow phone); the
 * browser's own inputs keep it, but the components that follow them have not seen it. The values of every form's
 * fields are noted just before hydration, and again once the page has hydrated (what was typed meanwhile), and put
 * back through the fields' own events; then the noted clicks and submissions are replayed, in order. Fields and
 * controls are found again by id, or by position.
 */
interface Typed {
  key: string;
  value?: string;
  checked?: boolean;
}

let typed: Typed[] = [];

const FIELDS = "form input, form textarea";
const keyOf = (el: Element) => (el.id ? `#${el.id}` : domPath(el));
const fieldAt = (doc: Document, key: string) =>
  key.startsWith("#") ? doc.getElementById(key.slice(1)) : atPath(doc, key);

/** The fields whose value differs from the one the page rendered (`defaultValue`, which hydration also sets). */
function typedFields(doc: Document): Typed[] {
  const found: Typed[] = [];
  for (const el of doc.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>(FIELDS)) {
    if (el instanceof HTMLInputElement && (el.type === "checkbox" || el.type === "radio")) {
      if (el.checked !== el.defaultChecked) found.push({ key: keyOf(el), checked: el.checked });
    } else if (el.type !== "hidden" && el.type !== "file" && el.value !== el.defaultValue) {
      found.push({ key: keyOf(el), value: el.value });
    }
  }
  return found;
}

export function rememberTypedFields(doc: Document = document) {
  typed = typedFields(doc);
}

/**
 * Notes again, once the page has hydrated, what was typed while it hydrated (after `rememberTypedFields`, which runs
 * just before): hydration leaves the browser's values in the fields, but the components have not seen them, and
 * their next render would put back their own (a slow phone can take a second or more to hydrate a page). What is in
 * a field now is the newest.
 */
function rememberTypedWhileHydrating(doc: Document) {
  const now = typedFields(doc);
  const keys = new Set(now.map((entry) => entry.key));
  typed = [...typed.filter((entry) => !keys.has(entry.key)), ...now];
}

function putBack(el: HTMLInputElement | HTMLTextAreaElement, entry: Typed) {
  if (entry.checked !== undefined) {
    // A radio button left unchecked is the other side of the one chosen, whose click does it.
    if (!(el instanceof HTMLInputElement) || (el.type === "radio" && !entry.checked)) return;
    // A click goes through React's handlers, so the component's state follows. The box may still show the choice
    // (hydration keeps the browser's state) while the component holds its first value: React only reports a
    // change from the value it last noted, so the box is first set back through React's own setter, and the click
    // then changes it for React too.
    if (el.checked === entry.checked) el.checked = !entry.checked;
    el.click();
  } else if (entry.value !== undefined) {
    // React tracks the value it last noted, and the prototype's setter plus an input event counts as typing from
    // it. Typed before React reached the field, the value it noted is the typed one: the field is first set to
    // another through React's own setter, so that the typing counts as a change.
    if (el.value === entry.value) el.value = el.defaultValue !== entry.value ? el.defaultValue : `${entry.value} `;
    const setter = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(el) as object, "value")?.set;
    setter?.call(el, entry.value);
    el.dispatchEvent(new Event("input", { bubbles: true }));
  }
}

const holds = (el: HTMLInputElement | HTMLTextAreaElement, entry: Typed) =>
  entry.checked !== undefined
    ? (el as HTMLInputElement).checked === entry.checked || (el.type === "radio" && !entry.checked)
    : el.value === entry.value;

/**
 * Puts back the typing noted before hydration, then calls `done`. Components may still render their first values
 * again in the commits that follow hydration, so each field is checked a few frames later and put back until it
 * holds; a field the person changes again after hydration is left alone.
 */
export function restoreTypedFields(doc: Document = document, done: () => void = () => undefined, attempts = 5) {
  const mine: Array<{ el: HTMLInputElement | HTMLTextAreaElement; entry: Typed }> = [];
  for (const entry of typed) {
    const el = fieldAt(doc, entry.key);
    if (!(el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement)) continue;
    // Neither what was noted nor the page's first value: changed since the page took over, and left so.
    const changedSince = entry.value !== undefined && el.value !== entry.value && el.value !== el.defaultValue;
    if (!changedSince) mine.push({ el, entry });
  }
  typed = [];
  const touched = new Set<EventTarget>();
  const onInput = (event: Event) => {
    if (event.isTrusted && event.target) touched.add(event.target);
  };
  doc.addEventListener("input", onInput, true);
  doc.addEventListener("change", onInput, true);
  // `done` runs once the components have rendered what was put back (a round later: the events were dispatched
  // from an effect, and React renders their updates after it).
  const round = (left: number, first: boolean) => {
    for (const { el, entry } of mine) {
      if (el.isConnected && !touched.has(el) && (first || !holds(el, entry))) putBack(el, entry);
    }
    if (!first && left === attempts - 1) done();
    if (left > 0) setTimeout(() => round(left - 1, false), 50);
    else {
      doc.removeEventListener("input", onInput, true);
      doc.removeEventListener("change", onInput, true);
    }
  };
  if (mine.length === 0) setTimeout(done, 0);
  round(mine.length > 0 ? attempts : 0, true);
}

/** Replays the clicks and submissions the head script held back, in order (a double tap counts once). */
export function replayEarlyActions(doc: Document = document, actions: EarlyAction[] = []) {
  let last = "";
  for (const action of actions) {
    const id = `${action.kind}:${action.path}`;
    if (id === last) continue;
    last = id;
    const el = atPath(doc, action.path);
    if (action.kind === "click" && el instanceof HTMLElement) el.click();
    else if (action.kind === "submit" && el instanceof HTMLFormElement) {
      const submitter = action.submitter ? atPath(doc, action.submitter) : null;
      el.requestSubmit(
        submitter instanceof HTMLButtonElement || submitter instanceof HTMLInputElement ? submitter : null,
      );
    }
  }
}

type EarlyWindow = Window & { __atelierEarly?: EarlyAction[] };

/**
 * Called once the whole page has hydrated (the root's effect, which runs after every other): from now on the page
 * handles its own events; what was typed is put back, then what was clicked or submitted is replayed.
 */
export function takeOverEarlyInput(win: EarlyWindow = window) {
  const doc = win.document;
  doc.documentElement.setAttribute("data-hydrated", "");
  const actions = win.__atelierEarly ?? [];
  win.__atelierEarly = [];
  rememberTypedWhileHydrating(doc);
  restoreTypedFields(doc, () => replayEarlyActions(doc, actions));
}
