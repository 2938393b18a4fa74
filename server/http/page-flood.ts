import type { Context } from "hono";
import { shortPage, type ShortPageSite } from "#server/http/short-page.ts";

const WINDOW_MS = 60_000;

/**
 * The bound on page renders per client address: a one-minute window from each address's first render, counted in
 * this process's memory. It is a flood guard, far above what a person browsing asks for, so a count per process
 * (not shared between instances, forgotten on restart) is enough, and it costs one map lookup per render. Windows
 * that have ended are swept once a minute, so only the addresses seen lately are kept.
 */
export class PageFloodGuard {
  private readonly windows = new Map<string, { count: number; endsAt: number }>();
  private nextSweep = 0;
  private readonly maxPerMinute: number;

  constructor(maxPerMinute: number) {
    this.maxPerMinute = maxPerMinute;
  }

  /** Counts one render for `address`; past the bound, the seconds until its window ends (otherwise 0). */
  take(address: string, now = Date.now()): number {
    if (this.maxPerMinute <= 0) return 0;
    if (now >= this.nextSweep) {
      for (const [key, window] of this.windows) if (window.endsAt <= now) this.windows.delete(key);
      this.nextSweep = now + WINDOW_MS;
    }
    let window = this.windows.get(address);
    if (!window || window.endsAt <= now) {
      window = { count: 0, endsAt: now + WINDOW_MS };
      this.windows.set(address, window);
    }
    window.count++;
    if (window.count <= this.maxPerMinute) return 0;
    return Math.max(1, Math.ceil((window.endsAt - now) / 1000));
  }
}

/** The 429 answer to a page asked for too often: a short page in the path's language. */
export function tooManyPages(c: Context, retryAfter: number, site: ShortPageSite): Response {
  return shortPage(c, { status: 429, messageKey: "error.tooMany", retryAfter, site });
}
