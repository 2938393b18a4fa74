import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PROBED_COMPONENTS } from "#app/styles/antd-probe.ts";
import { antdStylesheet, antdThemeOverride, cssBlocks } from "#app/styles/antd-stylesheet.ts";

function* sources(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* sources(path);
    else if (/\.tsx?$/.test(name) && !name.includes(".test.")) yield path;
  }
}

describe("Ant Design's build-time stylesheet", () => {
  it("probes every component the application imports, so none is left without styles", () => {
    const used = new Set<string>();
    for (const file of sources("app")) {
      for (const m of readFileSync(file, "utf8").matchAll(/import\s*\{([^}]*)\}\s*from\s*"antd"/g)) {
        for (const name of m[1]!.split(",")) {
          // A type brings no component, and so no styles, with it.
          if (/^type\s/.test(name.trim())) continue;
          const imported = name.trim().split(/\s+as\s+/)[0]!;
          if (imported && !/^[A-Z]\w*(Props|Config|Ref)$/.test(imported)) used.add(imported);
        }
      }
    }
    const missing = [...used].filter((name) => !(PROBED_COMPONENTS as readonly string[]).includes(name));
    expect(missing).toEqual([]);
  });

  it("has every rule once and the variables of both schemes", () => {
    const css = antdStylesheet("#4f46e5");
    const blocks = cssBlocks(css);
    const texts = blocks.map((b) => `${b.prelude}{${b.body}}`);
    expect(new Set(texts).size).toBe(texts.length);
    expect(blocks.some((b) => b.prelude === ".ant-btn")).toBe(true);
    const light = blocks.find((b) => b.prelude === ":root,.css-var-atelier")!;
    const dark = blocks.find((b) => b.prelude === 'html[data-theme="dark"],html[data-theme="dark"] .css-var-atelier')!;
    expect(light.body).toContain("--ant-color-bg-container:#ffffff");
    expect(dark.body).toContain("--ant-color-bg-container:#141414");
    // Class names carry no hash: the rules match whatever the server and the browser render.
    expect(css).not.toMatch(/:where\(\.css-|css-dev-only/);
  });

  it("overrides only the variables a different primary colour changes", () => {
    expect(antdThemeOverride("#4F46E5", "#4f46e5")).toBe("");
    const override = antdThemeOverride("#e11d48", "#4f46e5");
    expect(override).toMatch(/^:root,\.css-var-atelier\{[^}]*--ant-color-primary:#e11d48/m);
    expect(override).not.toContain("--ant-color-error:");
    for (const block of cssBlocks(override)) expect(block.body).not.toContain("#4f46e5");
  });

  it("splits a stylesheet into top-level blocks, nested ones and quoted braces included", () => {
    expect(cssBlocks('a{b:c}@media (x){d{e:f}}g::before{content:"}{"}')).toEqual([
      { prelude: "a", body: "b:c" },
      { prelude: "@media (x)", body: "d{e:f}" },
      { prelude: "g::before", body: 'content:"}{"' },
    ]);
  });
});
