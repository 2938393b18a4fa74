import type MarkdownIt from "markdown-it";
import * as katexPlugin from "@vscode/markdown-it-katex";
import "katex/dist/katex.min.css";

type Md = InstanceType<typeof MarkdownIt>;
type Plugin = (md: Md, options: Record<string, unknown>) => void;

/**
 * The plugin's function. Its package is CommonJS with `exports.default`: Node hands that function over as the default
 * import, while the browser's build hands over the module object holding it, so both shapes are read.
 */
export function mathPlugin(module: unknown): Plugin {
  let found: unknown = module;
  for (let depth = 0; depth < 3 && typeof found !== "function"; depth++)
    found = (found as { default?: unknown } | null)?.default;
  if (typeof found !== "function") throw new TypeError("the math plugin exports no function");
  return found as Plugin;
}

/**
 * The chat's math, loaded the first time a message has a formula: `$…$` inline and `$$…$$` as a block, drawn by
 * KaTeX without its `trust` option (no links, classes or styles from the formula) and with a formula it cannot
 * read shown as written rather than failing.
 */
export function addMath(md: Md) {
  md.use(mathPlugin(katexPlugin), { throwOnError: false, trust: false, strict: "ignore" });
}
