import { createElement as h } from "react";
import { renderToString } from "react-dom/server";
import { ConfigProvider } from "antd";
import { StyleProvider, createCache, extractStyle } from "@ant-design/cssinjs";
import { antdProbe } from "#app/styles/antd-probe.ts";
import { ANTD_CSS_VAR_KEY } from "#app/components/theme.ts";
import { theme } from "#app/components/antd-theme.ts";
import type { ColorScheme } from "#common/theme.ts";

/** The selector the dark scheme's variables hang from; the root layout sets `data-theme` before first paint. */
export const DARK_SCOPE = 'html[data-theme="dark"]';

interface Block {
  prelude: string;
  body: string;
}

/** Top-level `prelude{body}` blocks of a stylesheet (bodies may hold nested blocks, as in @media). */
export function cssBlocks(css: string): Block[] {
  const blocks: Block[] = [];
  let depth = 0;
  let start = 0;
  let open = -1;
  let quote: string | null = null;
  for (let i = 0; i < css.length; i++) {
    const ch = css[i];
    if (quote) {
      if (ch === "\\") i++;
      else if (ch === quote) quote = null;
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === "{") {
      if (depth === 0) open = i;
      depth++;
    } else if (ch === "}") {
      depth--;
      if (depth === 0) {
        blocks.push({ prelude: css.slice(start, open).trim(), body: css.slice(open + 1, i) });
        start = i + 1;
      }
    }
  }
  return blocks;
}

const isVariableBlock = (b: Block) => b.prelude.includes(".css-var-") && /^\s*--/.test(b.body);
// Inline panels (Modal, Select, Popconfirm) wrap themselves in a ConfigProvider of their own, with motion and popup
// layers switched off and a generated key: their variables are not the application's, and are left out.
const isOurs = (b: Block) => b.prelude.split(",").every((s) => s.includes(`.${ANTD_CSS_VAR_KEY}`));
const unique = (blocks: Block[]) => {
  const seen = new Set<string>();
  return blocks.filter((b) => {
    const text = `${b.prelude}{${b.body}}`;
    if (seen.has(text)) return false;
    seen.add(text);
    return true;
  });
};

/** Everything Ant Design registers for the probe tree in one scheme and primary colour. */
function render(primary: string, scheme: ColorScheme) {
  const cache = createCache();
  // The probe is rendered with styles generated at run time on purpose: that is what is captured here.
  const config = { ...theme(primary, scheme), zeroRuntime: false };
  renderToString(h(StyleProvider, { cache }, h(ConfigProvider, { theme: config }, antdProbe())));
  const blocks = cssBlocks(extractStyle(cache, { plain: true }));
  return {
    rules: unique(blocks.filter((b) => !isVariableBlock(b))),
    variables: unique(blocks.filter(isVariableBlock).filter(isOurs)),
  };
}

/** The light scheme's variables also sit on :root, so the site's own CSS can use Ant Design's tokens. */
const lightSelector = (prelude: string) =>
  prelude === `.${ANTD_CSS_VAR_KEY}` ? `:root,.${ANTD_CSS_VAR_KEY}` : prelude;
const darkSelector = (prelude: string) =>
  prelude === `.${ANTD_CSS_VAR_KEY}`
    ? `${DARK_SCOPE},${DARK_SCOPE} .${ANTD_CSS_VAR_KEY}`
    : prelude
        .split(",")
        .map((s) => `${DARK_SCOPE} ${s.trim()}`)
        .join(",");

const print = (blocks: Block[]) => blocks.map((b) => `${b.prelude}{${b.body}}`).join("\n");

function variables(primary: string) {
  const light = render(primary, "light");
  const dark = render(primary, "dark");
  return {
    light,
    dark,
    blocks: [
      ...light.variables.map((b) => ({ prelude: lightSelector(b.prelude), body: b.body })),
      ...dark.variables.map((b) => ({ prelude: darkSelector(b.prelude), body: b.body })),
    ],
  };
}

/**
 * The whole stylesheet of the Ant Design components the application uses: their rules once (they only refer to
 * CSS variables), then the variables of the light scheme and, under `html[data-theme="dark"]`, of the dark one.
 */
export function antdStylesheet(primary: string): string {
  const { light, dark, blocks } = variables(primary);
  const lightRules = print(light.rules);
  if (lightRules !== print(dark.rules)) {
    throw new Error("Ant Design's rules differ between the light and dark schemes: only variables may differ");
  }
  return `${lightRules}\n${print(blocks)}\n`;
}

function declarations(body: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const part of body.split(";")) {
    const at = part.indexOf(":");
    if (at > 0) map.set(part.slice(0, at).trim(), part.slice(at + 1).trim());
  }
  return map;
}

/**
 * The variables that change when the site's primary colour is not the one the stylesheet was built with (about
 * 10 KB, light and dark), loaded after it, so an operator's colour applies without a rebuild.
 */
export function antdThemeOverride(primary: string, builtWith: string): string {
  if (primary.toLowerCase() === builtWith.toLowerCase()) return "";
  const base = new Map(variables(builtWith).blocks.map((b) => [b.prelude, declarations(b.body)]));
  const out: string[] = [];
  for (const block of variables(primary).blocks) {
    const before = base.get(block.prelude);
    const changed = [...declarations(block.body)].filter(([name, value]) => before?.get(name) !== value);
    if (changed.length > 0) out.push(`${block.prelude}{${changed.map(([n, v]) => `${n}:${v}`).join(";")}}`);
  }
  return `${out.join("\n")}\n`;
}
