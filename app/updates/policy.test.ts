import { describe, expect, it } from "vitest";
import { CHUNK_RELOAD_WINDOW_MS, isChunkLoadError, shouldReloadForChunk, updateVerdict } from "./policy.ts";

function memoryStore() {
  const data = new Map<string, string>();
  return { getItem: (k: string) => data.get(k) ?? null, setItem: (k: string, v: string) => void data.set(k, v), data };
}

describe("update verdict", () => {
  it("sees a new build by its id and a newer version by its timestamp", () => {
    expect(updateVerdict({ id: "b", timestamp: 5 }, "a", 5)).toBe("new-build");
    expect(updateVerdict({ id: "a", timestamp: 6 }, "a", 5)).toBe("newer-version");
    expect(updateVerdict({ id: "a", timestamp: 5 }, "a", 5)).toBe("none");
    expect(updateVerdict({ id: "a", timestamp: 4 }, "a", 5)).toBe("none");
  });

  it("stays silent on anything malformed", () => {
    for (const junk of [null, "x", 42, {}, { id: 1, timestamp: 2 }, { id: "b" }, { id: "b", timestamp: NaN }]) {
      expect(updateVerdict(junk, "a", 0)).toBe("none");
    }
  });
});

describe("chunk reload guard", () => {
  it("recognises the browsers' chunk errors and nothing else", () => {
    expect(isChunkLoadError(new TypeError("Failed to fetch dynamically imported module: /assets/a.js"))).toBe(true);
    expect(isChunkLoadError(new TypeError("error loading dynamically imported module"))).toBe(true);
    expect(isChunkLoadError(new TypeError("Importing a module script failed."))).toBe(true);
    expect(isChunkLoadError(new Error("Unable to preload CSS for /assets/a.css"))).toBe(true);
    expect(isChunkLoadError(new Error("Cannot read properties of undefined"))).toBe(false);
    expect(isChunkLoadError(undefined)).toBe(false);
  });

  it("reloads once per path within ten seconds, then lets the error page show", () => {
    const store = memoryStore();
    expect(shouldReloadForChunk(store, "/de/", 1000)).toBe(true);
    expect(shouldReloadForChunk(store, "/de/", 1000 + CHUNK_RELOAD_WINDOW_MS - 1)).toBe(false);
    expect(shouldReloadForChunk(store, "/fr/", 2000)).toBe(true);
    expect(shouldReloadForChunk(store, "/de/", 1000 + CHUNK_RELOAD_WINDOW_MS)).toBe(true);
  });

  it("forgets old reloads and survives a damaged record", () => {
    const store = memoryStore();
    store.setItem("chunk_reload", "{not json");
    expect(shouldReloadForChunk(store, "/", 0)).toBe(true);
    expect(shouldReloadForChunk(store, "/a", CHUNK_RELOAD_WINDOW_MS * 3)).toBe(true);
    expect(JSON.parse(store.data.get("chunk_reload")!)).toEqual({ "/a": CHUNK_RELOAD_WINDOW_MS * 3 });
  });

  it("does not reload when it cannot remember having reloaded", () => {
    const store = {
      getItem: () => null,
      setItem: () => {
        throw new Error("quota");
      },
    };
    expect(shouldReloadForChunk(store, "/", 0)).toBe(false);
  });
});
