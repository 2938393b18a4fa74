import { createElement, type ReactNode } from "react";

/** An element as bench/floor.mjs captured it from a page Atelier rendered: tag, attributes, children. */
export type Markup = string | [tag: string, attributes: Record<string, string>, children: Markup[]];

export interface CapturedPage {
  head: Markup[];
  body: Markup[];
  /** What each of the page's routes sent for hydration (translations, SEO, the signed-in user…). */
  loaderData: Record<string, unknown>;
}

/** Put there by server.mjs before it loads the build (the same modules are bundled for the browser). */
export const pages: Record<string, CapturedPage> =
  (globalThis as { floorPages?: Record<string, CapturedPage> }).floorPages ?? {};

const REACT_NAMES: Record<string, string> = {
  class: "className",
  for: "htmlFor",
  charset: "charSet",
  hreflang: "hrefLang",
  tabindex: "tabIndex",
  crossorigin: "crossOrigin",
  popovertarget: "popoverTarget",
  autocomplete: "autoComplete",
  maxlength: "maxLength",
  readonly: "readOnly",
  srcset: "srcSet",
  fetchpriority: "fetchPriority",
  "http-equiv": "httpEquiv",
  "fill-rule": "fillRule",
  "clip-rule": "clipRule",
  "stroke-width": "strokeWidth",
  "stroke-linecap": "strokeLinecap",
  "stroke-linejoin": "strokeLinejoin",
};

/** The React elements for captured markup, made afresh on every render as a page's components would. */
export function elements(nodes: Markup[]): ReactNode[] {
  return nodes.map((node, key) => {
    if (typeof node === "string") return node;
    const [tag, attributes, children] = node;
    const props: Record<string, unknown> = { key };
    for (const [name, value] of Object.entries(attributes)) {
      // Inline styles are custom properties on these pages; React wants an object, and they cost nothing here.
      if (name !== "style") props[REACT_NAMES[name] ?? name] = value;
    }
    return createElement(tag, props, ...elements(children));
  });
}
