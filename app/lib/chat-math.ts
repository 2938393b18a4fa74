import type MarkdownIt from "markdown-it";

type Md = InstanceType<typeof MarkdownIt>;
import markdownItKatex from "@vscode/markdown-it-katex";
import "katex/dist/katex.min.css";

/**
 * The chat's math, loaded the first time a message has a formula: `$…$` inline and `$$…$$` as a block, drawn by
 * KaTeX without its `trust` option (no links, classes or styles from the formula) and with a formula it cannot
 * read shown as written rather than failing.
 */
export function addMath(md: Md) {
  md.use(markdownItKatex, { throwOnError: false, trust: false, strict: "ignore" });
}
