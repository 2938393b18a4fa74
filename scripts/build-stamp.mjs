import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";

// Everything the build reads. A change in any of these makes `npm start` build again.
const INPUTS = [
  "app",
  "server",
  "common",
  "config",
  "locales",
  "public",
  "content",
  "package-lock.json",
  "vite.config.ts",
  "react-router.config.ts",
  "scripts/antd-stylesheet.ts",
];
const STAMP = "build/.source-hash";

function* files(path) {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return;
  }
  if (stat.isDirectory()) {
    for (const name of readdirSync(path).sort()) {
      if (name === "node_modules" || name.endsWith(".test.ts") || name.endsWith(".test.tsx")) continue;
      yield* files(join(path, name));
    }
  } else yield path;
}

export function sourceHash(root) {
  const hash = createHash("sha256");
  for (const input of INPUTS) {
    for (const file of files(join(root, input))) {
      hash.update(file.slice(root.length));
      hash.update(readFileSync(file));
    }
  }
  return hash.digest("hex");
}

export function isBuildStale(root) {
  try {
    return readFileSync(join(root, STAMP), "utf8").trim() !== sourceHash(root);
  } catch {
    return true;
  }
}

export function writeBuildStamp(root) {
  writeFileSync(join(root, STAMP), `${sourceHash(root)}\n`);
}
