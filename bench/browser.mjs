// What a browser loads: first-load JavaScript of the public pages (Chromium through playwright-core), and
// Lighthouse's mobile audit (the npm `lighthouse` package driving Debian's Chromium), median of three runs.
import { gzipSync } from "node:zlib";
import { chromium } from "playwright-core";
import { CHROMIUM, CHROMIUM_ARGS as FLAGS } from "../tests/support/browser.ts";

/**
 * Every script a page loads until the network is idle (chunks it imports on load included), each weighed gzipped
 * at level 9 as the server sends it, in KiB. The first visit of a fresh browser: nothing comes from its cache.
 * With `cookie` (a `Cookie` header, `name=value; …`), each fresh browser holds those cookies for `base`: a signed-in
 * visit. Each page's result also carries the scripts' addresses as `scripts` (not enumerable: kept out of JSON).
 */
export async function firstLoadJavaScript(base, paths, { cookie } = {}) {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
  const results = {};
  try {
    for (const path of paths) {
      const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
      if (cookie) await context.addCookies(parseCookie(cookie, base));
      const page = await context.newPage();
      const scripts = new Set();
      page.on("response", (r) => {
        if (r.request().resourceType() === "script" && r.url().startsWith(base)) scripts.add(r.url());
      });
      const res = await page.goto(`${base}${path}`, { waitUntil: "networkidle" });
      let bytes = 0;
      let gzipBytes = 0;
      for (const url of scripts) {
        const body = Buffer.from(
          await (await fetch(url, { headers: { "accept-encoding": "identity" } })).arrayBuffer(),
        );
        bytes += body.length;
        gzipBytes += gzipSync(body, { level: 9 }).length;
      }
      results[path] = Object.defineProperty(
        {
          status: res?.status() ?? null,
          files: scripts.size,
          kib: Math.round((bytes / 1024) * 10) / 10,
          gzipKiB: Math.round((gzipBytes / 1024) * 10) / 10,
        },
        "scripts",
        { value: [...scripts] },
      );
      await context.close();
    }
  } finally {
    await browser.close();
  }
  return results;
}

/** `name=value; name2=value2` as the browser's cookies for `base`. */
function parseCookie(header, base) {
  return header
    .split(";")
    .map((pair) => pair.trim())
    .filter(Boolean)
    .map((pair) => {
      const at = pair.indexOf("=");
      return { name: pair.slice(0, at), value: pair.slice(at + 1), url: base };
    });
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * Lighthouse's default (mobile, simulated slow 4G and a slower CPU), `runs` times per page; medians. `headers` go with
 * every request of the page (a session's cookie, for signed-in pages).
 */
export async function lighthouseScores(base, paths, runs = 3, headers = undefined) {
  let lighthouse;
  let launcher;
  try {
    lighthouse = (await import("lighthouse")).default;
    launcher = await import("chrome-launcher");
  } catch (error) {
    return { skipped: `lighthouse is not installed (${error.message})` };
  }
  const results = {};
  for (const path of paths) {
    const samples = [];
    for (let i = 0; i < runs; i++) {
      const chrome = await launcher.launch({ chromePath: CHROMIUM, chromeFlags: FLAGS });
      try {
        const { lhr } = await lighthouse(`${base}${path}`, {
          port: chrome.port,
          output: "json",
          logLevel: "error",
          onlyCategories: ["performance", "accessibility", "seo", "best-practices"],
          ...(headers ? { extraHeaders: headers } : {}),
        });
        if (lhr.finalDisplayedUrl && new URL(lhr.finalDisplayedUrl).pathname !== new URL(`${base}${path}`).pathname)
          throw new Error(`${path} was redirected to ${lhr.finalDisplayedUrl}`);
        const audit = (id) => lhr.audits[id]?.numericValue ?? null;
        samples.push({
          performance: Math.round((lhr.categories.performance?.score ?? 0) * 100),
          accessibility: Math.round((lhr.categories.accessibility?.score ?? 0) * 100),
          seo: Math.round((lhr.categories.seo?.score ?? 0) * 100),
          bestPractices: Math.round((lhr.categories["best-practices"]?.score ?? 0) * 100),
          fcpMs: Math.round(audit("first-contentful-paint")),
          lcpMs: Math.round(audit("largest-contentful-paint")),
          tbtMs: Math.round(audit("total-blocking-time")),
          cls: Math.round(audit("cumulative-layout-shift") * 1000) / 1000,
          speedIndexMs: Math.round(audit("speed-index")),
          failing: Object.values(lhr.audits)
            .filter((a) => a.score !== null && a.score < 1 && a.scoreDisplayMode === "binary")
            .map((a) => a.id),
        });
      } finally {
        await chrome.kill();
      }
    }
    const pick = (key) => median(samples.map((s) => s[key]));
    results[path] = {
      runs,
      performance: pick("performance"),
      accessibility: pick("accessibility"),
      seo: pick("seo"),
      bestPractices: pick("bestPractices"),
      fcpMs: pick("fcpMs"),
      lcpMs: pick("lcpMs"),
      tbtMs: pick("tbtMs"),
      cls: pick("cls"),
      speedIndexMs: pick("speedIndexMs"),
      failingAudits: [...new Set(samples.flatMap((s) => s.failing))],
    };
  }
  return results;
}
