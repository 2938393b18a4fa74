// `npm run i18n:report`: lists every translated value that is identical to the English one, so a reviewer
// can tell a forgotten translation from a word that is the same in both languages ("API", "Blog").
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const dir = fileURLToPath(new URL("../locales", import.meta.url));
const flatten = (tree, prefix = "") =>
  Object.entries(tree).flatMap(([key, value]) =>
    typeof value === "string" ? [[prefix + key, value]] : flatten(value, `${prefix}${key}.`),
  );
const load = (locale, file) => new Map(flatten(JSON.parse(readFileSync(join(dir, locale, file), "utf8"))));

let count = 0;
for (const file of readdirSync(join(dir, "en"))) {
  const english = load("en", file);
  for (const locale of readdirSync(dir).filter((l) => l !== "en")) {
    for (const [key, value] of load(locale, file)) {
      if (value !== english.get(key)) continue;
      count += 1;
      process.stdout.write(`${locale}\t${file.replace(/\.json$/, "")}:${key}\t${JSON.stringify(value)}\n`);
    }
  }
}
process.stdout.write(`${count} value(s) identical to English\n`);
