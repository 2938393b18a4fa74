import { createReadStream } from "node:fs";
import { mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { dirname, extname, join, resolve, sep } from "node:path";
import { randomUUID } from "node:crypto";
import { Readable } from "node:stream";
import { FILES_PREFIX, isStorageKey, type Storage } from "./storage.ts";

export { FILES_PREFIX, isStorageKey, type Storage };

/** The disk keeps no content type, so it comes from the extension, which every key has. */
const TYPES: Record<string, string> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".webp": "image/webp",
  ".gif": "image/gif",
  ".mp4": "video/mp4",
  ".webm": "video/webm",
  ".json": "application/json",
  ".txt": "text/plain; charset=utf-8",
};

export function contentTypeOf(key: string): string {
  return TYPES[extname(key).toLowerCase()] ?? "application/octet-stream";
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
  const sizeOf = async (key: string) => {
    try {
      const info = await stat(pathOf(key));
      return info.isFile() ? info.size : null;
    } catch {
      return null;
    }
  };
  const storage: Storage & { root: string; pathOf(key: string): string } = {
    kind: "local",
    where: `the folder ${root}`,
    root,
    pathOf,
    async put(key, body) {
      const full = pathOf(key);
      await mkdir(dirname(full), { recursive: true });
      const temp = join(dirname(full), `.${randomUUID()}.tmp`);
      await writeFile(temp, body, { mode: 0o640 });
      await rename(temp, full);
    },
    async get(key, range) {
      const size = await sizeOf(key);
      if (size === null) return null;
      const stream = createReadStream(pathOf(key), range ? { start: range.start, end: range.end } : {});
      return {
        body: Readable.toWeb(stream) as ReadableStream<Uint8Array>,
        size,
        contentType: contentTypeOf(key),
        range,
      };
    },
    async stat(key) {
      const size = await sizeOf(key);
      return size === null ? null : { size, contentType: contentTypeOf(key) };
    },
    async delete(key) {
      await rm(pathOf(key), { force: true });
    },
    async check() {
      const key = `health/${randomUUID()}.txt`;
      try {
        await storage.put(key, new TextEncoder().encode("ok"), "text/plain");
        const ok = (await readFile(pathOf(key), "utf8")) === "ok";
        await storage.delete(key);
        return ok;
      } catch {
        return false;
      }
    },
    url: (key) => `${FILES_PREFIX}${key}`,
  };
  return storage;
}
