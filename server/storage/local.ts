import { mkdir, rm, writeFile, rename } from "node:fs/promises";
import { dirname, join, resolve, sep } from "node:path";
import { randomUUID } from "node:crypto";

/** Where uploaded and generated files live; S3-compatible storage implements the same interface. */
export interface Storage {
  put(key: string, body: Uint8Array, contentType: string): Promise<void>;
  delete(key: string): Promise<void>;
  /** The URL path the app serves the file under. */
  url(key: string): string;
}

export const FILES_PREFIX = "/files/";
const KEY = /^[A-Za-z0-9][A-Za-z0-9/_-]{0,200}\.[a-z0-9]{2,5}$/;

export function isStorageKey(key: string): boolean {
  return KEY.test(key) && !key.includes("..") && !key.includes("//");
}

/** Files under DATA_DIR/files, written atomically (temporary file, then rename). */
export function createLocalStorage(dataDir: string): Storage & { root: string; pathOf(key: string): string } {
  const root = resolve(dataDir, "files");
  const pathOf = (key: string) => {
    if (!isStorageKey(key)) throw new Error(`invalid storage key ${key}`);
    const full = resolve(root, key);
    if (!full.startsWith(root + sep)) throw new Error(`invalid storage key ${key}`);
    return full;
  };
  return {
    root,
    pathOf,
    async put(key, body) {
      const full = pathOf(key);
      await mkdir(dirname(full), { recursive: true });
      const temp = join(dirname(full), `.${randomUUID()}.tmp`);
      await writeFile(temp, body, { mode: 0o640 });
      await rename(temp, full);
    },
    async delete(key) {
      await rm(pathOf(key), { force: true });
    },
    url: (key) => `${FILES_PREFIX}${key}`,
  };
}
