// The framework's floor for a page: the same markup and the same hydration data as a page Atelier rendered,
// rendered by a React Router application that does nothing else (bench/floor/: no middleware, no translations,
// no components of its own; Node's `http` in front). What Atelier adds on top of it is Atelier's own cost; the
// floor itself is what React and React Router ask for that much markup and data.
import { gzipSync } from "node:zlib";
import { parse } from "parse5";
import { UNSAFE_decodeViaTurboStream as decodeViaTurboStream } from "react-router";

/** parse5's tree as the floor app's `Markup`: [tag, attributes, children], without scripts and comments. */
function markupOf(node) {
  if (node.nodeName === "#text") return node.value;
  if (!node.tagName || node.tagName === "script") return null;
  const attributes = Object.fromEntries((node.attrs ?? []).map((a) => [a.name, a.value]));
  const children = (node.content ?? node).childNodes ?? [];
  return [node.tagName, attributes, children.map(markupOf).filter((child) => child !== null)];
}

/** The hydration data's text as the page carried it (React Router's turbo-stream, in its inline scripts). */
function hydrationTextOf(html) {
  return [...html.matchAll(/streamController\.enqueue\(("(?:[^"\\]|\\.)*")\)/g)].map((m) => JSON.parse(m[1])).join("");
}

/**
 * What a page weighs for a phone and for the server: the whole document, gzipped as it travels, and the part of it
 * that is hydration data (which the browser parses again before the page answers).
 */
export function pageSizes(html) {
  const hydration = Buffer.byteLength(hydrationTextOf(html));
  const bytes = Buffer.byteLength(html);
  return {
    htmlBytes: bytes,
    gzipBytes: gzipSync(html).length,
    hydrationBytes: hydration,
    markupBytes: bytes - hydration,
  };
}

/** The loader data a page carried for hydration, decoded the way the browser decodes it. */
async function hydrationDataOf(html) {
  const text = hydrationTextOf(html);
  if (!text) return {};
  const body = new ReadableStream({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(text));
      controller.close();
    },
  });
  const decoded = await decodeViaTurboStream(body, globalThis);
  await decoded.done;
  return decoded.value?.loaderData ?? {};
}

/** A page as the floor app renders it: its head and body markup, and its routes' loader data. */
export async function capturePage(html) {
  const document = parse(html);
  const htmlElement = document.childNodes.find((n) => n.nodeName === "html");
  const part = (name) =>
    (htmlElement?.childNodes.find((n) => n.nodeName === name)?.childNodes ?? [])
      .map(markupOf)
      .filter((child) => child !== null);
  return {
    head: part("head").filter((child) => typeof child !== "string"),
    body: part("body"),
    loaderData: JSON.parse(JSON.stringify(await hydrationDataOf(html))),
  };
}
