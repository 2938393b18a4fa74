import { THEME_SCRIPT } from "#common/theme.ts";

/**
 * What a visitor does before the page's scripts have taken over (a slow phone can take seconds), kept rather than
 * lost. Forms with an `action` work without scripts and are left to the browser. For the rest, this script runs in
 * <head> and notes, until the page says it is hydrated (`data-hydrated` on <html>):
 * - clicks on buttons and button-like controls (open the menu, the language list, "Create API key"), which have no
 *   effect without scripts;
 * - submissions of forms without an `action` (the studios), which without scripts would reload the page and lose
 *   what was typed: they are held back.
 * An element React has already taken over (it carries React's props) is left to React: between hydration and the
 * moment the page says so, an event must not be both handled and replayed. Each is noted by the element's
 * position in the document, which hydration keeps; the page replays them once it runs (`takeOverEarlyInput` in
 * app/lib/typed-before-hydration.ts). What was typed into fields is kept by the browser and put back through the
 * components (same module).
 */
export const EARLY_INPUT_SCRIPT =
  '(function(){var d=document,h=d.documentElement,q=window.__atelierEarly=[];function p(e){for(var r=[];e&&e!==d.body;e=e.parentElement){for(var i=0,s=e;(s=s.previousElementSibling);)i++;r.unshift(i)}return r.join("/")}function l(e){for(var k in e)if(k.indexOf("__reactProps$")===0)return true;return false}d.addEventListener("click",function(e){if(h.hasAttribute("data-hydrated")||!e.target.closest)return;var b=e.target.closest("button,[role=button],[role=menuitem],[role=tab],[role=switch]");if(!b||l(b)||(b.type==="submit"&&b.form))return;q.push({kind:"click",path:p(b)})},true);d.addEventListener("submit",function(e){var f=e.target;if(h.hasAttribute("data-hydrated")||l(f)||f.hasAttribute("action"))return;e.preventDefault();q.push({kind:"submit",path:p(f),submitter:e.submitter?p(e.submitter):null})},true)})();';

/** One held-back action, as the head script notes it. */
export interface EarlyAction {
  kind: "click" | "submit";
  path: string;
  submitter?: string | null;
}

/** The element's position under <body>, as the head script writes it: child indices joined by `/`. */
export function domPath(el: Element): string {
  const body = el.ownerDocument.body;
  const steps: number[] = [];
  for (let node: Element | null = el; node && node !== body; node = node.parentElement) {
    let i = 0;
    for (let s = node.previousElementSibling; s; s = s.previousElementSibling) i++;
    steps.unshift(i);
  }
  return steps.join("/");
}

/** The element at a position written by `domPath` (or the head script), if there is still one. */
export function atPath(doc: Document, path: string): Element | null {
  let node: Element | null = doc.body;
  if (path === "") return node;
  for (const step of path.split("/")) {
    node = node?.children[Number(step)] ?? null;
    if (!node) return null;
  }
  return node;
}

/** The one inline script of <head>: the theme's, then the one above. Allowed by its hash in the CSP. */
export const HEAD_SCRIPT = THEME_SCRIPT + EARLY_INPUT_SCRIPT;
