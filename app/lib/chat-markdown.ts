import MarkdownIt from "markdown-it";

type Md = InstanceType<typeof MarkdownIt>;

/**
 * The chat's Markdown: what a model or a person writes is shown as Markdown (lists, tables, code, links, math) and
 * never as markup. Raw HTML is escaped (`html: false`), links are checked by markdown-it (no `javascript:`,
 * `vbscript:`, `file:` or `data:` address) and open in a new tab without handing over the page, and a picture is
 * shown as a link to it rather than loaded (a model could otherwise make the page fetch any address). Code blocks
 * get a copy button; their highlighting and the math are drawn by modules loaded the first time a message needs
 * them (`loadExtras`), so a conversation without code or math never downloads them.
 */

type Highlighter = (code: string, language: string) => string | null;
type Extra = (md: Md) => void;

let highlighter: Highlighter | null = null;
let math: Extra | null = null;

const escapeHtml = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

const FENCE = /^\s*(```|~~~)/m;
const MATH = /\$\$[\s\S]+?\$\$|(^|[^\\$\w])\$[^\s$](?:[^$\n]*[^\s$])?\$(?!\w)/;

/** What a text needs beyond the core: highlighting for its code blocks, the math renderer for its formulas. */
export function extrasNeeded(text: string): { code: boolean; math: boolean } {
  return { code: FENCE.test(text) && !highlighter, math: MATH.test(text) && !math };
}

/** Loads what `extrasNeeded` says is missing; resolves true when something new arrived. */
export async function loadExtras(needed: { code: boolean; math: boolean }): Promise<boolean> {
  const loads: Promise<void>[] = [];
  if (needed.code && !highlighter)
    loads.push(
      import("./chat-highlight.ts").then((m) => {
        highlighter = m.highlight;
      }),
    );
  if (needed.math && !math)
    loads.push(
      import("./chat-math.ts").then((m) => {
        math = m.addMath;
      }),
    );
  if (loads.length === 0) return false;
  await Promise.all(loads);
  renderers.clear();
  return true;
}

const renderers = new Map<string, Md>();

function renderer(copyLabel: string): Md {
  const key = copyLabel;
  const known = renderers.get(key);
  if (known) return known;
  const md = new MarkdownIt({ html: false, linkify: true, typographer: false, breaks: false });
  md.renderer.rules.link_open = (tokens, i, options, _env, self) => {
    const token = tokens[i]!;
    token.attrSet("target", "_blank");
    token.attrSet("rel", "noopener noreferrer nofollow");
    return self.renderToken(tokens, i, options);
  };
  md.renderer.rules.image = (tokens, i) => {
    const token = tokens[i]!;
    const src = String(token.attrGet("src") ?? "");
    const alt = token.content || src;
    if (!/^https?:\/\//i.test(src)) return escapeHtml(alt);
    return `<a href="${escapeHtml(src)}" target="_blank" rel="noopener noreferrer nofollow">${escapeHtml(alt)}</a>`;
  };
  md.renderer.rules.fence = (tokens, i) => {
    const token = tokens[i]!;
    const language = token.info.trim().split(/\s+/)[0] ?? "";
    const highlighted = highlighter?.(token.content, language) ?? null;
    const code = highlighted ?? escapeHtml(token.content);
    return (
      `<div class="chat-code"><div class="chat-code-head"><span>${escapeHtml(language)}</span>` +
      `<button type="button" class="chat-code-copy" data-copy>${escapeHtml(copyLabel)}</button></div>` +
      `<pre><code${language ? ` class="hljs language-${escapeHtml(language)}"` : ' class="hljs"'}>${code}</code></pre></div>`
    );
  };
  const table = md.renderer.rules.table_open;
  md.renderer.rules.table_open = (tokens, i, options, env, self) =>
    `<div class="chat-table">${table ? table(tokens, i, options, env, self) : self.renderToken(tokens, i, options)}`;
  md.renderer.rules.table_close = (tokens, i, options, _env, self) => `${self.renderToken(tokens, i, options)}</div>`;
  math?.(md);
  renderers.set(key, md);
  return md;
}

/** A message's Markdown as safe HTML, with the extras loaded so far. */
export function renderChatMarkdown(text: string, copyLabel: string): string {
  return renderer(copyLabel).render(text);
}
