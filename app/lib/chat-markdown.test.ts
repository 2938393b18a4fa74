import { describe, expect, it } from "vitest";
import { extrasNeeded, loadExtras, renderChatMarkdown } from "./chat-markdown.ts";
import { mathPlugin } from "./chat-math.ts";

const render = (text: string) => renderChatMarkdown(text, "Copy");

describe("the chat's Markdown", () => {
  it("draws lists, tables, emphasis and links that open apart from the page", () => {
    const html = render(
      "**Bold** and a [link](https://example.com)\n\n- one\n- two\n\n| a | b |\n|---|---|\n| 1 | 2 |",
    );
    expect(html).toContain("<strong>Bold</strong>");
    expect(html).toContain('<a href="https://example.com" target="_blank" rel="noopener noreferrer nofollow">link</a>');
    expect(html).toContain("<li>one</li>");
    expect(html).toMatch(/<div class="chat-table"><table>[\s\S]*<td>1<\/td>/);
  });

  it("never lets a model's or a person's text run a script or load an address", () => {
    const hostile = [
      "<script>alert(1)</script>",
      '<img src=x onerror="alert(1)">',
      "[click](javascript:alert(1))",
      "[data](data:text/html;base64,PHNjcmlwdD4=)",
      "![tracker](https://tracker.example/pixel.png)",
      "![inline](data:image/png;base64,AAAA)",
      '<a href="https://example.com" onclick="alert(1)">x</a>',
      "```html\n<script>alert(1)</script>\n```",
    ].join("\n\n");
    const html = render(hostile);
    expect(html).not.toMatch(/<script|<img|<[a-z][^>]*\son\w+=|href="javascript:|href="data:/i);
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    // A picture is a link to it, never loaded by the page.
    expect(html).toContain('<a href="https://tracker.example/pixel.png"');
  });

  it("gives code blocks a copy button, and highlights and draws math once their modules are loaded", async () => {
    const text = "```ts\nconst x: number = 1;\n```\n\nThe area is $\\pi r^2$.";
    expect(extrasNeeded(text)).toEqual({ code: true, math: true });
    const plain = render(text);
    expect(plain).toContain('<button type="button" class="chat-code-copy" data-copy>Copy</button>');
    expect(plain).toContain("const x: number = 1;");
    expect(plain).not.toContain("katex");
    expect(extrasNeeded("Prices start at $5 and $10 a month.")).toEqual({ code: false, math: false });

    expect(await loadExtras(extrasNeeded(text))).toBe(true);
    const rich = render(text);
    expect(rich).toContain('<span class="hljs-keyword">const</span>');
    expect(rich).toContain('class="katex"');
    expect(extrasNeeded(text)).toEqual({ code: false, math: false });
  });

  it("finds the math plugin's function whether the build hands over the function or the module holding it", () => {
    const plugin = () => undefined;
    expect(mathPlugin(plugin)).toBe(plugin);
    expect(mathPlugin({ default: plugin })).toBe(plugin);
    expect(mathPlugin({ __esModule: true, default: { default: plugin } })).toBe(plugin);
    expect(() => mathPlugin({ default: {} })).toThrow(TypeError);
  });
});
