/** How the browser notices that a new version of the site is out, and how it survives a missing chunk. */

export const VERSION_CHECK_INTERVAL_MS = 60 * 60 * 1000;
export const APP_VERSION_KEY = "app_version";
export const CHUNK_RELOAD_WINDOW_MS = 10_000;
export const CHUNK_RELOAD_KEY = "chunk_reload";

export interface BuildDescriptor {
  id: string;
  timestamp: number;
}

export type UpdateVerdict = "none" | "new-build" | "newer-version";

/**
 * Compares the build file the server publishes with the running build and with the version this browser
 * last recorded. A different build id is a new build; a timestamp newer than the recorded one is a newer
 * version (seen by another tab, say). Anything malformed is "none": a failed check stays silent.
 */
export function updateVerdict(published: unknown, runningId: string, storedTimestamp: number): UpdateVerdict {
  if (!isBuildDescriptor(published)) return "none";
  if (published.id !== runningId) return "new-build";
  if (published.timestamp > storedTimestamp) return "newer-version";
  return "none";
}

export function isBuildDescriptor(value: unknown): value is BuildDescriptor {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as BuildDescriptor).id === "string" &&
    typeof (value as BuildDescriptor).timestamp === "number" &&
    Number.isFinite((value as BuildDescriptor).timestamp)
  );
}

/** The messages Chromium, Firefox and Safari give when a script chunk cannot be fetched. */
export function isChunkLoadError(error: unknown): boolean {
  const message = error instanceof Error ? error.message : typeof error === "string" ? error : "";
  return /Failed to fetch dynamically imported module|error loading dynamically imported module|Importing a module script failed|Unable to preload CSS|Loading (CSS )?chunk [\w-]+ failed/i.test(
    message,
  );
}

/**
 * Whether a chunk error on `path` should reload the page: once per path within the window, so that a chunk that
 * is really gone shows the error page instead of reloading forever. Records the reload in `store`.
 */
export function shouldReloadForChunk(store: Pick<Storage, "getItem" | "setItem">, path: string, now: number): boolean {
  let reloads: Record<string, number> = {};
  try {
    const parsed: unknown = JSON.parse(store.getItem(CHUNK_RELOAD_KEY) ?? "{}");
    if (parsed && typeof parsed === "object") reloads = parsed as Record<string, number>;
  } catch {
    // A damaged record is as good as none.
  }
  const last = reloads[path];
  if (typeof last === "number" && now - last >= 0 && now - last < CHUNK_RELOAD_WINDOW_MS) return false;
  // Forget reloads older than the window so the record stays small.
  for (const [key, at] of Object.entries(reloads)) {
    if (typeof at !== "number" || now - at >= CHUNK_RELOAD_WINDOW_MS) delete reloads[key];
  }
  reloads[path] = now;
  try {
    store.setItem(CHUNK_RELOAD_KEY, JSON.stringify(reloads));
  } catch {
    // Without storage there is no guard: do not risk a reload loop.
    return false;
  }
  return true;
}
