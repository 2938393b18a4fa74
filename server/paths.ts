import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The project root: the nearest folder above this module holding package.json (same from source and from the build). */
function findRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, "package.json"))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return process.cwd();
    dir = parent;
  }
}

export const ROOT = findRoot();
export const MIGRATIONS_DIR = join(ROOT, "server/db/migrations");
export const CLIENT_BUILD_DIR = join(ROOT, "build/client");
/** Markdown pages (documentation, and the blog and legal pages later), read while the server runs. */
export const CONTENT_DIR = join(ROOT, "content");
export const resolveFromRoot = (path: string) => resolve(ROOT, path);
