import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "#tests/support/server.ts";

type Tree = { [key: string]: string | Tree };

/** One translated string, read from the same files the app uses: `text("de", "home", "title")`. */
export function text(locale: string, ns: string, key: string): string {
  let node: string | Tree = JSON.parse(readFileSync(join(ROOT, "locales", locale, `${ns}.json`), "utf8")) as Tree;
  for (const part of key.split(".")) {
    if (typeof node === "string" || !(part in node)) throw new Error(`no ${locale}:${ns}:${key}`);
    node = node[part]!;
  }
  if (typeof node !== "string") throw new Error(`${locale}:${ns}:${key} is not a string`);
  return node;
}
