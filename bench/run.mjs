// `npm run bench`: measures Atelier's production server against the budgets in the engineering guide and a
// plain Node `http` server run on the same machine in the same run, then writes bench/results/latest.json.
// It records; it never fails on a budget. It exits non-zero only when a server cannot be built or started.
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { isBuildStale, writeBuildStamp } from "../scripts/build-stamp.mjs";
import { BENCH_EMAIL, samePage, signUp } from "./account.mjs";
import { firstLoadJavaScript, lighthouseScores } from "./browser.mjs";
import { toolPath } from "../common/tools.ts";
import { capturePage, pageSizes } from "./floor.mjs";
import { benchDatabase } from "./postgres.mjs";
import { startWeb, waitReady } from "./web.mjs";

// Same spelling as scripts/start.mjs computes it (with the trailing slash): the build stamp hashes paths
// relative to it, so a different spelling would make start.mjs think the build is stale.
const root = fileURLToPath(new URL("..", import.meta.url));
const benchDir = join(root, "bench");
const resultsDir = join(benchDir, "results");
const HOST = "127.0.0.1";

const LOAD = { connections: 50, durationSeconds: 10, warmupSeconds: 2 };
const LIMITS = {
  buildMs: 15 * 60_000,
  readyMs: 120_000,
  plainReadyMs: 10_000,
  pollIntervalMs: 50,
  pollRequestMs: 5_000,
  shutdownMs: 30_000,
  killWaitMs: 5_000,
  rebuilds: 1,
};
// Ratios are to the plain Node server measured in the same run (engineering guide, "Performance budgets").
const BUDGETS = {
  homeUncached: { minRatio: 0.02, maxP99Ms: 100, note: "home rendered per request, 50 connections, no errors" },
  cachedPage: { minRatio: 0.25, note: "every public page from the page cache" },
  dashboard: { minRatio: 0.01, note: "signed-in dashboard home" },
  ofFloor: {
    minDashboard: 0.6,
    minStudio: 0.6,
    minHomeSignedIn: 0.8,
    note: "each signed-in page's rate against its own floor (the same markup and hydration data rendered by bench/floor), 50 connections: the dashboard home and the text-to-image studio ≥ 0.6, the home page signed in ≥ 0.8",
  },
  apiPoll: { minRatioPostgres: 0.04, note: "GET /api/v1/generations/{id} with a key, on PostgreSQL" },
  healthz: { minRatio: 0.4 },
  firstLoadJavaScript: { maxGzipKiB: 160, note: "every public page" },
  lighthouse: { minPerformance: 95, maxCls: 0, maxTbtMs: 150, minAccessibility: 95, minSeo: 100 },
  lighthouseSignedIn: {
    minPerformance: 90,
    minAccessibility: 95,
    note: "Lighthouse mobile (median of 3) signed in, on the embedded database: the dashboard home, a studio, the chat and the console's overview",
  },
  homeHtml: { maxBytes: 40_000 },
  memory: { maxRssMiBPostgres: 250, note: "VmRSS of the web process on PostgreSQL after the loads" },
  holds: { minPerSecondPostgres: 500, note: "bench/holds.mjs: 20 clients each holding 1 credit in a loop for 5 s" },
  pickup: { maxMedianMsPostgres: 1000, note: "bench/generation.mjs: one offline-demo image job at a time" },
  chat: {
    maxAddedTtftMs: 50,
    note: "bench/chat.mjs: time to first token through the chat's engine minus the local provider's own (p50), and 200 answers at once against a balance covering 37",
  },
  rollingRestart: {
    maxCutOr5xx: 0,
    note: "bench/rolling-restart.mjs: two web processes on PostgreSQL restarted one after the other under a steady load",
  },
  tools: {
    maxMaskLegRatio: 1.25,
    maxPageOverDashboardKiB: 10,
    note: "bench/tools.mjs: a 10 MB input's and a mask's upload and submit (the mask's leg against the input's), and each tool page's first-load JavaScript against the signed-in dashboard home's",
  },
  provenance: {
    maxMsPerImage: 10,
    note: "bench/provenance.mjs: the XMP packet written into a 1024×1024 PNG, JPEG and WebP (p50 of 50), and into an MP4; C2PA signing of the PNG and JPEG reported apart, outside this budget",
  },
  classifier: {
    maxCallingThreadP99DelayMs: 20,
    note: "bench/classifier.mjs: the offline image classifier in its worker thread, with the production processes' memory settings: model load, p50/p95 per 1024×1024 image, resident memory added; it stays off the request path when the calling thread's event loop p99 delay ≤ 20 ms while it classifies",
  },
  explore: {
    maxSearchP95MsPostgres: 50,
    minLikesPerSecondPostgres: 1000,
    note: "bench/explore.mjs: explore's search and orders among 1,000,000 public results (p95 of the use case), and likes by 50 clients, on PostgreSQL",
  },
  overload: {
    maxServedP99Ms: 1000,
    note: "bench/overload.mjs: the signed-in dashboard home sent at twice its measured capacity for 60 s; the requests served keep p99 ≤ 1 s, the rest are refused with 503 and Retry-After, /healthz, /readyz, the status poll and webhooks are all answered, and every image accepted meanwhile is made and charged once",
  },
  footprint: {
    maxBuildPeakMiB: 1024,
    maxBuildSeconds: 60,
    maxOpenPeakMiB: 600,
    maxReadyMiB: 400,
    maxRestartReadyzMs: 3000,
    note: "bench/footprint.mjs: `npm start` from no build and an empty data folder, on the embedded database, measured on its whole process tree: the build's peak and time, opening and migrating the database, ready and under load (8 connections), and a restart to /readyz",
  },
  generationPath: {
    maxSubmitToRunningP50Ms: 50,
    minTwoWorkersOverOne: 1.6,
    note: "bench/generation-path.mjs: images through the public API with a provider that answers at once, on PostgreSQL, one web process and 1, 2 and 4 worker processes: submit → running p50 one image at a time, and finished images per second from one worker to two",
  },
  adminOverview: {
    maxP50MsPostgres: 250,
    note: "bench/overview.mjs: the console's 90-day overview over 100,000 generations and 10,000 accounts",
  },
};

/** Public pages measured under load (uncached and from the cache) and in the browser. */
const LOAD_PAGES = ["/", "/pricing", "/docs"];
const PUBLIC_PAGES = [
  "/",
  "/pricing",
  "/docs",
  "/docs/api",
  "/docs/webhooks",
  "/docs/api-reference",
  "/legal/terms",
  "/blog",
  "/blog/writing-prompts-that-work",
  "/test",
  "/auth/login",
  "/auth/register",
  "/auth/update-password",
  "/ja/",
  "/no-such-page",
];
/** Signed-in pages in Lighthouse, as an admin (the console's overview is one of them). */
const LIGHTHOUSE_SIGNED_IN_PAGES = ["/dashboard/home", toolPath("text-to-image"), "/dashboard/chat", "/user/admin"];
const LIGHTHOUSE_PAGES = ["/", "/pricing", "/docs", "/legal/terms", "/blog/writing-prompts-that-work", "/test"];

// ---------------------------------------------------------------------------------------------------------
// Cleanup: every child and temp folder is tracked so that any exit path (error, Ctrl-C, SIGTERM) removes it.

const children = new Set();
const tempDirs = new Set();
let currentLoad = null;

function track(child) {
  children.add(child);
  child.once("exit", () => children.delete(child));
  return child;
}

function killAll() {
  for (const child of children) {
    try {
      child.kill("SIGKILL");
    } catch {
      // already gone
    }
  }
}

function removeTempDirs() {
  for (const dir of tempDirs) {
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    } catch (error) {
      process.stderr.write(`bench: could not remove ${dir}: ${error.message}\n`);
    }
    tempDirs.delete(dir);
  }
}

process.on("exit", () => {
  killAll();
  removeTempDirs();
});
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => {
    process.stderr.write(`\nbench: ${signal} received, stopping servers.\n`);
    currentLoad?.stop();
    killAll();
    removeTempDirs();
    process.exit(130);
  });
}

class StartError extends Error {}

// ---------------------------------------------------------------------------------------------------------
// Helpers

function sparePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.unref();
    probe.once("error", reject);
    probe.listen(0, HOST, () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/** Keeps the last lines a child printed, for error reports; a busy server must not grow memory here. */
function captureOutput(child, maxChars = 32_000) {
  let text = "";
  let lines = 0;
  const add = (chunk) => {
    const s = chunk.toString();
    lines += s.split("\n").length - 1;
    text = (text + s).slice(-maxChars);
  };
  child.stdout?.on("data", add);
  child.stderr?.on("data", add);
  return {
    get lines() {
      return lines;
    },
    tail(count = 20) {
      return text.trimEnd().split("\n").slice(-count).join("\n");
    },
  };
}

function waitForExit(child, timeoutMs) {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode, timedOut: false });
  }
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.off("exit", onExit);
      resolve({ code: null, signal: null, timedOut: true });
    }, timeoutMs);
    const onExit = (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, timedOut: false });
    };
    child.once("exit", onExit);
  });
}

/** SIGTERM, wait up to `graceMs`, then SIGKILL. Returns how long the process took to go away. */
async function stopProcess(child, graceMs) {
  const started = performance.now();
  if (child.exitCode !== null || child.signalCode !== null) {
    return { ms: 0, code: child.exitCode, signal: child.signalCode, killed: false, alreadyExited: true };
  }
  child.kill("SIGTERM");
  const graceful = await waitForExit(child, graceMs);
  if (!graceful.timedOut)
    return { ms: performance.now() - started, code: graceful.code, signal: graceful.signal, killed: false };
  child.kill("SIGKILL");
  const forced = await waitForExit(child, LIMITS.killWaitMs);
  return { ms: performance.now() - started, code: forced.code, signal: forced.signal, killed: true };
}

function hasExited(child) {
  return child.exitCode !== null || child.signalCode !== null;
}

/**
 * Polls `url` every `intervalMs` until it answers 200. Bounded by `deadlineMs` after `since` and by attempt count;
 * gives up at once if `child` exits. Returns milliseconds from `since` to the first 200.
 */
async function waitFor200(url, { since, deadlineMs, intervalMs = LIMITS.pollIntervalMs, child }) {
  const maxAttempts = Math.ceil(deadlineMs / intervalMs) + 1;
  let last = "no answer yet";
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    const attemptAt = performance.now();
    const remaining = since + deadlineMs - attemptAt;
    if (remaining <= 0) break;
    if (child && hasExited(child)) {
      throw new StartError(
        `the process exited (code ${child.exitCode}, signal ${child.signalCode}) before ${url} answered 200; last: ${last}`,
      );
    }
    try {
      const response = await fetch(url, {
        redirect: "manual",
        signal: AbortSignal.timeout(Math.max(1, Math.min(LIMITS.pollRequestMs, remaining))),
      });
      await response.arrayBuffer();
      if (response.status === 200) return { ms: performance.now() - since, attempts: attempt };
      last = `HTTP ${response.status}`;
    } catch (error) {
      last = error.cause?.code ?? error.name ?? String(error);
    }
    await sleep(Math.max(0, attemptAt + intervalMs - performance.now()));
  }
  throw new StartError(`${url} did not answer 200 within ${deadlineMs} ms; last: ${last}`);
}

async function measure(url, { connections = LOAD.connections, durationSeconds = LOAD.durationSeconds, headers } = {}) {
  const instance = autocannon({ url, connections, duration: durationSeconds, timeout: 10, headers });
  currentLoad = instance;
  try {
    const r = await instance;
    return {
      url: new URL(url).pathname,
      connections,
      durationSeconds: r.duration,
      requestsPerSecond: round(r.requests.average),
      requestsTotal: r.requests.total,
      latencyMs: { average: round(r.latency.average), p50: r.latency.p50, p99: r.latency.p99, max: r.latency.max },
      throughputBytesPerSecond: Math.round(r.throughput.average),
      non2xx: r.non2xx,
      errors: r.errors,
      timeouts: r.timeouts,
      statusCodes: Object.fromEntries(Object.entries(r.statusCodeStats ?? {}).map(([code, v]) => [code, v.count])),
    };
  } finally {
    currentLoad = null;
  }
}

/**
 * One GET of a page: what a single response weighs, to read the throughput numbers against. The page itself comes
 * with it as `html` (a 2xx only), kept out of the results (not enumerable).
 */
async function describePage(url, headers) {
  try {
    const response = await fetch(url, {
      headers,
      redirect: "manual",
      signal: AbortSignal.timeout(LIMITS.pollRequestMs),
    });
    const body = Buffer.from(await response.arrayBuffer());
    const description = {
      status: response.status,
      contentType: response.headers.get("content-type"),
      cacheControl: response.headers.get("cache-control"),
      bytes: body.length,
    };
    return Object.defineProperty(description, "html", { value: response.ok ? body.toString("utf8") : null });
  } catch (error) {
    return { error: error.cause?.code ?? error.message };
  }
}

function round(n, digits = 2) {
  if (typeof n !== "number" || !Number.isFinite(n)) return null;
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

function readStatus(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (key) => {
    const match = status.match(new RegExp(`^${key}:\\s+(\\d+) kB`, "m"));
    return match ? Number(match[1]) : null;
  };
  return { rssKiB: kib("VmRSS"), peakRssKiB: kib("VmHWM") };
}

function memory(pid) {
  try {
    const { rssKiB, peakRssKiB } = readStatus(pid);
    return {
      rssMiB: rssKiB === null ? null : round(rssKiB / 1024, 1),
      peakRssMiB: peakRssKiB === null ? null : round(peakRssKiB / 1024, 1),
    };
  } catch (error) {
    return { rssMiB: null, peakRssMiB: null, error: error.message };
  }
}

function runBuild() {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    // The build's own output goes to stderr so stdout stays the results table.
    const child = track(
      spawn("npm", ["run", "build", "--silent"], {
        cwd: root,
        stdio: ["ignore", process.stderr, process.stderr],
        env: process.env,
      }),
    );
    const timer = setTimeout(() => child.kill("SIGKILL"), LIMITS.buildMs);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(new StartError(`could not run npm run build: ${error.message}`));
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      if (code === 0) {
        writeBuildStamp(root);
        resolve(performance.now() - started);
      } else reject(new StartError(`npm run build failed (code ${code}, signal ${signal})`));
    });
  });
}

// ---------------------------------------------------------------------------------------------------------
// Phases

async function benchPlain() {
  const port = await sparePort();
  const child = track(
    spawn(process.execPath, [join(benchDir, "plain-server.mjs")], {
      cwd: root,
      env: { ...process.env, PORT: String(port) },
      stdio: ["ignore", "pipe", "pipe"],
    }),
  );
  const output = captureOutput(child);
  const url = `http://${HOST}:${port}/`;
  try {
    await waitFor200(url, { since: performance.now(), deadlineMs: LIMITS.plainReadyMs, child });
  } catch (error) {
    await stopProcess(child, LIMITS.killWaitMs);
    throw new StartError(`plain server: ${error.message}\n${output.tail()}`);
  }
  try {
    await measure(url, { durationSeconds: LOAD.warmupSeconds });
    return await measure(url);
  } finally {
    await stopProcess(child, LIMITS.killWaitMs);
  }
}

/**
 * Atelier's production server on a fresh database (`databaseUrl`, or the embedded PGlite in a temporary folder):
 * start-up, /healthz, the public pages rendered per request (a query string keeps a page out of the page cache)
 * and from the cache, the signed-in dashboard, the API status poll, memory; with `browser`, also first-load
 * JavaScript of every public page and Lighthouse.
 */
async function benchAtelier({ databaseUrl, browser }) {
  // The other side of the repo may have changed since the build; start.mjs would then rebuild inside the
  // start-up measurement. Rebuild here instead (a bounded number of times) so start-up measures starting.
  let rebuilds = 0;
  while (isBuildStale(root) && rebuilds < LIMITS.rebuilds) {
    rebuilds++;
    process.stderr.write("bench: sources changed since the build; building again.\n");
    await runBuild();
  }
  const staleAtStart = isBuildStale(root);

  const dataDir = mkdtempSync(join(os.tmpdir(), "atelier-bench-"));
  tempDirs.add(dataDir);
  const port = await sparePort();
  const base = `http://${HOST}:${port}`;
  const env = {
    ...process.env,
    PORT: String(port),
    HOST,
    // Links in e-mails and the pages' own origin checks name the address the benchmark talks to
    SITE_URL: base,
    DATA_DIR: dataDir,
    LOG_LEVEL: "warn",
    NODE_ENV: "production",
    // The API is measured at full speed: the key's and the account's limits are still counted in the same
    // statement, never reached
    API_RATE_LIMIT_PER_MINUTE: "1000000",
    API_ACCOUNT_RATE_LIMIT_PER_MINUTE: "1000000",
    // Every page load comes from this one address, thousands a second: the flood guard is counted, never reached
    PAGE_RATE_LIMIT_PER_MINUTE: "1000000",
    // The account makes a page of public results for explore's figures (one credit each)
    SIGNUP_BONUS_CREDITS: "100",
    // The shutdown measured here is the stop itself; the pre-stop delay is measured with a balancer (rolling restart)
    SHUTDOWN_DELAY_SECONDS: "0",
    // These rows measure what a request costs at full speed: every connection gets its turn at once (the turns are
    // still taken and given back). Refusing the excess is measured by the overload scenario, with the default.
    MAX_CONCURRENT_REQUESTS: String(LOAD.connections),
  };
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  else delete env.DATABASE_URL;

  const spawnedAt = performance.now();
  // process.execPath is the Node running this script (24 under `npm run bench`); no shell, so child.pid is the
  // server itself (start.mjs imports the server in-process).
  const child = track(
    spawn(process.execPath, [join(root, "scripts", "start.mjs")], {
      cwd: root,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    }),
  );
  const output = captureOutput(child);
  let spawnError = null;
  child.once("error", (error) => (spawnError = error));

  const result = {
    database: databaseUrl ? "postgresql" : "pglite",
    buildStaleAtStart: staleAtStart,
    rebuiltBeforeStart: rebuilds,
  };
  try {
    try {
      const ready = await waitFor200(`${base}/readyz`, { since: spawnedAt, deadlineMs: LIMITS.readyMs, child });
      const home = await waitFor200(`${base}/`, { since: spawnedAt, deadlineMs: LIMITS.readyMs, child });
      result.startup = { readyzFirst200Ms: Math.round(ready.ms), homeFirst200Ms: Math.round(home.ms) };
    } catch (error) {
      const reason = spawnError ? spawnError.message : error.message;
      throw new StartError(`Atelier did not start: ${reason}\n--- server output (last lines) ---\n${output.tail(40)}`);
    }
    result.homePage = await describePage(`${base}/?uncached`);
    // Kept for the framework floor (not written to the results: it is the page itself)
    const captured = { home: result.homePage.html };
    Object.defineProperty(result, "captured", { value: captured, enumerable: false });
    result.memoryBeforeLoad = memory(child.pid);

    await measure(`${base}/?uncached`, { durationSeconds: LOAD.warmupSeconds });
    result.healthz = await measure(`${base}/healthz`);
    result.pages = {};
    for (const path of LOAD_PAGES) {
      result.pages[path] = {
        uncached: await measure(`${base}${path}?uncached`),
        cached: await measure(`${base}${path}`),
      };
    }
    let session = null;
    try {
      const api = await prepareApi(base, dataDir);
      session = api.cookie;
      const signedIn = { cookie: api.cookie };
      await measure(`${base}/dashboard/home`, { durationSeconds: LOAD.warmupSeconds, headers: signedIn });
      result.dashboard = await measure(`${base}/dashboard/home`, { headers: signedIn });
      captured.dashboard = (await describePage(`${base}/dashboard/home`, signedIn)).html;
      // The home page as a signed-in visitor sees it (rendered each time: the page cache is for visitors) and a
      // studio, each against its own floor.
      await measure(`${base}/`, { durationSeconds: LOAD.warmupSeconds, headers: signedIn });
      result.homeSignedIn = await measure(`${base}/`, { headers: signedIn });
      captured.homeSignedIn = (await describePage(`${base}/`, signedIn)).html;
      const studio = `${base}${toolPath("text-to-image")}`;
      await measure(studio, { durationSeconds: LOAD.warmupSeconds, headers: signedIn });
      result.studio = await measure(studio, { headers: signedIn });
      captured.studio = (await describePage(studio, signedIn)).html;
      result.sizes = Object.fromEntries(
        Object.entries(captured)
          .filter(([, html]) => html)
          .map(([name, html]) => [name, pageSizes(html)]),
      );
      // Explore with a page of public results: signed out from the page cache, signed in rendered each time.
      await publishResults(base, api, EXPLORE_RESULTS);
      await measure(`${base}/explore`, { durationSeconds: LOAD.warmupSeconds });
      result.explore = { cached: await measure(`${base}/explore`) };
      await measure(`${base}/explore`, { durationSeconds: LOAD.warmupSeconds, headers: signedIn });
      result.explore.signedIn = await measure(`${base}/explore`, { headers: signedIn });
      const headers = { authorization: `Bearer ${api.key}` };
      const poll = `${base}/api/v1/generations/${api.generationId}`;
      await measure(poll, { durationSeconds: LOAD.warmupSeconds, headers });
      result.apiGeneration = await measure(poll, { headers });
    } catch (error) {
      result.apiGeneration = { error: String(error.message ?? error) };
    }
    result.memoryAfterLoad = memory(child.pid);
    result.serverAliveAfterLoad = !hasExited(child);
    if (browser) {
      process.stderr.write("bench: first-load JavaScript of the public pages (Chromium)…\n");
      result.firstLoadJavaScript = await firstLoadJavaScript(base, PUBLIC_PAGES).catch((error) => ({
        error: String(error.message ?? error),
      }));
      process.stderr.write("bench: Lighthouse, mobile, three runs per page…\n");
      result.lighthouse = await lighthouseScores(base, LIGHTHOUSE_PAGES).catch((error) => ({
        error: String(error.message ?? error),
      }));
      if (session) {
        process.stderr.write("bench: Lighthouse, mobile, signed in as an admin…\n");
        result.lighthouseSignedIn = await signedInLighthouse(base, env, session).catch((error) => ({
          error: String(error.message ?? error),
        }));
      }
    }
  } finally {
    const stopped = await stopProcess(child, LIMITS.shutdownMs);
    result.shutdown = {
      ms: Math.round(stopped.ms),
      exitCode: stopped.code,
      signal: stopped.signal,
      forcedKill: stopped.killed,
    };
    result.serverOutputLines = output.lines;
    if (output.lines > 0) result.serverOutputTail = output.tail(20);
    removeTempDirs();
  }
  return result;
}

/** The bench's account made an admin with the operators' command, then Lighthouse on the signed-in pages. */
async function signedInLighthouse(base, env, cookie) {
  const granted = spawnSync(process.execPath, [join(root, "scripts", "start.mjs"), "admin", "grant", BENCH_EMAIL], {
    cwd: root,
    env,
    encoding: "utf8",
    timeout: 60_000,
  });
  if (granted.status !== 0) throw new Error(`admin grant failed: ${(granted.stderr || granted.stdout).slice(-500)}`);
  return lighthouseScores(base, LIGHTHOUSE_SIGNED_IN_PAGES, 3, { Cookie: cookie });
}

/**
 * The framework's floor: the home page's and the dashboard's markup and hydration data, as Atelier rendered them,
 * rendered per request by bench/floor (React Router and React with nothing of Atelier's) under the same load.
 */
async function benchFloor(captured) {
  const pages = {};
  for (const [name, html] of Object.entries(captured ?? {})) if (html) pages[name] = await capturePage(html);
  if (Object.keys(pages).length === 0) return { error: "no page captured" };
  const dir = mkdtempSync(join(os.tmpdir(), "atelier-floor-"));
  tempDirs.add(dir);
  // Inside the project, so that the build's imports resolve to its node_modules
  tempDirs.add(join(benchDir, "floor", "build"));
  const env = { ...process.env, NODE_ENV: "production", FLOOR_PAGES: join(dir, "pages.json") };
  writeFileSync(env.FLOOR_PAGES, JSON.stringify(pages));
  const cli = join(root, "node_modules", "@react-router", "dev", "bin.cjs");
  const built = spawnSync(process.execPath, [cli, "build"], {
    cwd: join(benchDir, "floor"),
    env,
    stdio: ["ignore", process.stderr, process.stderr],
    timeout: LIMITS.buildMs,
  });
  if (built.status !== 0) {
    removeTempDirs();
    return { error: `build failed (${built.error?.message ?? `exit ${built.status}`})` };
  }
  const port = await sparePort();
  const base = `http://${HOST}:${port}`;
  const child = track(
    spawn(process.execPath, [join(benchDir, "floor", "server.mjs")], {
      cwd: root,
      env: { ...env, PORT: String(port) },
      stdio: ["ignore", "pipe", "pipe"],
    }),
  );
  const output = captureOutput(child);
  const result = { pages: {} };
  try {
    const first = Object.keys(pages)[0];
    await waitFor200(`${base}/${first}`, { since: performance.now(), deadlineMs: LIMITS.readyMs, child });
    for (const name of Object.keys(pages)) {
      const url = `${base}/${name}`;
      await measure(url, { durationSeconds: LOAD.warmupSeconds });
      result.pages[name] = { ...(await measure(url)), bytes: (await describePage(url)).bytes };
    }
    result.memoryAfterLoad = memory(child.pid);
  } catch (error) {
    result.error = `${error.message}\n${output.tail(20)}`;
  } finally {
    await stopProcess(child, LIMITS.killWaitMs);
    removeTempDirs();
  }
  return result;
}

/**
 * An account with an API key and one finished image, made the way a developer would: sign up, confirm from the
 * outbox, sign in, create a key on the internal API, create an image on the public one.
 */
/** Public results made for explore's figures: a page of them. */
const EXPLORE_RESULTS = 24;

/** `count` images made through the API and made public from the account's session, one after the other. */
async function publishResults(base, api, count) {
  const auth = { Authorization: `Bearer ${api.key}`, "Content-Type": "application/json" };
  for (let i = 0; i < count; i++) {
    const made = await fetch(`${base}/api/v1/images`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ model: "demo-image", prompt: `A benchmark lighthouse at dusk, study ${i + 1}` }),
    });
    if (made.status !== 201) throw new Error(`creating an image answered ${made.status}`);
    const { id } = await made.json();
    await finished(base, auth, id);
    const shared = await fetch(`${base}/api/generations/${id}`, {
      method: "PATCH",
      headers: { ...samePage(base), Cookie: api.cookie, "Content-Type": "application/json" },
      body: JSON.stringify({ visibility: "public" }),
    });
    if (shared.status !== 200) throw new Error(`making an image public answered ${shared.status}`);
  }
}

/** Waits for a generation to succeed (a minute at most). */
async function finished(base, auth, id) {
  const deadline = performance.now() + 60_000;
  for (;;) {
    const g = await (await fetch(`${base}/api/v1/generations/${id}`, { headers: auth })).json();
    if (g.status === "succeeded") return;
    if (g.status !== "queued" && g.status !== "processing") throw new Error(`the image ${g.status}`);
    if (performance.now() > deadline) throw new Error("the image did not finish");
    await sleep(100);
  }
}

async function prepareApi(base, dataDir) {
  const page = samePage(base);
  const cookie = await signUp(base, dataDir);
  const created = await fetch(`${base}/api/keys`, {
    method: "POST",
    headers: { ...page, Cookie: cookie, "Content-Type": "application/json" },
    body: "{}",
  });
  if (created.status !== 201) throw new Error(`creating a key answered ${created.status}`);
  const { secret: key } = await created.json();
  const auth = { Authorization: `Bearer ${key}` };
  const image = await fetch(`${base}/api/v1/images`, {
    method: "POST",
    headers: { ...auth, "Content-Type": "application/json" },
    body: JSON.stringify({ model: "demo-image", prompt: "A benchmark lighthouse" }),
  });
  if (image.status !== 201) throw new Error(`creating an image answered ${image.status}`);
  const { id: generationId } = await image.json();
  await finished(base, auth, generationId);
  return { key, generationId, cookie };
}

// ---------------------------------------------------------------------------------------------------------
// Report

function printTable(report) {
  const {
    plain,
    atelier,
    floor,
    ratios,
    verdicts,
    holds,
    generation,
    generationPath,
    apiKeys,
    adminOverview,
    chat,
    rollingRestart,
    tools,
    provenance,
    classifier,
    explore,
  } = report.results;
  const pad = (v, n) => String(v ?? "–").padEnd(n);
  const padL = (v, n) => String(v ?? "–").padStart(n);
  const mark = (ok) => (ok === undefined || ok === null ? "" : ok ? "  ok" : "  OVER BUDGET");
  const row = (name, r, ratio, ok) =>
    r?.requestsPerSecond !== undefined
      ? `${pad(name, 26)}${padL(r.requestsPerSecond, 10)}${padL(r.latencyMs.p50, 8)}${padL(r.latencyMs.p99, 8)}${padL(r.non2xx, 8)}${padL(r.errors, 8)}${padL(ratio, 9)}${mark(ok)}`
      : `${pad(name, 26)}${r?.error ?? "not measured"}`;
  const keyRow = (name, r) =>
    r?.sequential
      ? `${pad(name, 18)}hash ${apiKeys.hashMicroseconds} µs; verify+count p50 ${r.sequential.p50Ms} ms, p99 ${r.sequential.p99Ms} ms; 50 clients on one key ${r.oneKey50.perSecond}/s, on 50 keys ${r.ownKeys50.perSecond}/s`
      : `${pad(name, 18)}${r?.skipped ?? r?.error ?? "not measured"}`;
  const loadRow = (name, r) =>
    r?.jobsPerSecond !== undefined
      ? `${pad(name, 18)}${r.jobsPerSecond} jobs/s; submit p50 ${r.submitMs.p50} ms, p99 ${r.submitMs.p99} ms; pick-up behind the backlog p50 ${r.backlogPickupMs.p50} ms`
      : `${pad(name, 18)}${r?.error ?? "not measured"}`;
  const genRows = (name, r, ok) =>
    r?.idlePickupMs
      ? [
          `${pad(name, 18)}pick-up on an idle queue p50 ${r.idlePickupMs.p50} ms, max ${r.idlePickupMs.max} ms${mark(ok)}`,
          ...Object.entries(r)
            .filter(([key]) => key !== "idlePickupMs")
            .map(([key, value]) => loadRow(`  ${key}`, value)),
        ]
      : [`${pad(name, 18)}${r?.skipped ?? r?.error ?? "not measured"}`];
  const overviewRow = (name, r, ok) =>
    r?.overview
      ? `${pad(name, 18)}overview p50 ${Object.entries(r.overview)
          .map(([period, t]) => `${period} ${t.p50Ms} ms`)
          .join(", ")}; models 90 d ${r.models90d.p50Ms} ms; user search ${r.userSearch.p50Ms} ms${mark(ok)}`
      : `${pad(name, 18)}${r?.skipped ?? r?.error ?? "not measured"}`;
  const holdRow = (name, r) =>
    r?.separateAccounts
      ? `${pad(name, 18)}${r.separateAccounts.holdsPerSecond}/s (p50 ${r.separateAccounts.latencyMs.p50} ms, p99 ${r.separateAccounts.latencyMs.p99} ms); one shared account ${r.oneAccount.holdsPerSecond}/s (p99 ${r.oneAccount.latencyMs.p99} ms)`
      : `${pad(name, 18)}${r?.skipped ?? r?.error ?? "not measured"}`;
  const serverRows = (name, a, r, v) => {
    if (!a?.healthz) return [`${name}: ${a?.skipped ?? a?.error ?? "not measured"}`];
    return [
      `${name} — start → first 200: /readyz ${a.startup.readyzFirst200Ms} ms, / ${a.startup.homeFirst200Ms} ms; home HTML ${a.homePage.bytes} bytes${mark(v.homeHtml)}`,
      row("  /healthz", a.healthz, r.healthz, v.healthz),
      ...LOAD_PAGES.flatMap((path) => [
        row(
          `  ${path} rendered`,
          a.pages[path].uncached,
          r.pages[path].uncached,
          path === "/" ? v.homeUncached : undefined,
        ),
        row(`  ${path} from the cache`, a.pages[path].cached, r.pages[path].cached, v.cachedPages?.[path]),
      ]),
      row("  /dashboard/home", a.dashboard, r.dashboard, v.dashboard),
      row("  / signed in", a.homeSignedIn, r.homeSignedIn),
      row("  text-to-image studio", a.studio, r.studio),
      ...(r.ofFloor
        ? [
            `  ÷ its floor             dashboard ${r.ofFloor.dashboard ?? "–"}${mark(v.ofFloor?.dashboard)}, studio ${r.ofFloor.studio ?? "–"}${mark(v.ofFloor?.studio)}, home signed in ${r.ofFloor.homeSignedIn ?? "–"}${mark(v.ofFloor?.homeSignedIn)}`,
          ]
        : []),
      ...Object.entries(a.sizes ?? {}).map(
        ([name, z]) =>
          `  ${pad(`size ${name}`, 24)}HTML ${z.htmlBytes} B (gzip ${z.gzipBytes} B), of which hydration data ${z.hydrationBytes} B`,
      ),
      row("  /explore from the cache", a.explore?.cached, r.explore?.cached, v.exploreCached),
      row("  /explore signed in", a.explore?.signedIn, r.explore?.signedIn, v.exploreSignedIn),
      row("  API status poll", a.apiGeneration, r.apiGeneration, v.apiPoll),
      `  memory (VmRSS)          before load ${a.memoryBeforeLoad.rssMiB} MiB, after ${a.memoryAfterLoad.rssMiB} MiB, peak ${a.memoryAfterLoad.peakRssMiB} MiB${mark(v.memory)}`,
      `  shutdown (SIGTERM)      ${a.shutdown.ms} ms, exit code ${a.shutdown.exitCode}${a.shutdown.forcedKill ? " (had to SIGKILL)" : ""}`,
    ];
  };
  const lighthouseRows = (scores, within) =>
    scores && !scores.error && !scores.skipped
      ? Object.entries(scores).map(
          ([path, r]) =>
            `  ${pad(path, 24)}${padL(r.performance, 4)}${padL(r.accessibility, 5)}${padL(r.seo, 5)}${padL(`${r.lcpMs} ms`, 10)}${padL(`${r.tbtMs} ms`, 9)}${padL(r.cls, 7)}${mark(within?.[path])}`,
        )
      : [`  ${scores?.error ?? scores?.skipped ?? "not measured"}`];
  const js = atelier.pglite?.firstLoadJavaScript;
  const lh = atelier.pglite?.lighthouse;
  const lhs = atelier.pglite?.lighthouseSignedIn;
  const lines = [
    "",
    `Atelier bench — ${report.date} — Node ${report.node} — ${report.cpus.count}× ${report.cpus.model}`,
    "",
    `${pad("target", 26)}${padL("req/s", 10)}${padL("p50 ms", 8)}${padL("p99 ms", 8)}${padL("non2xx", 8)}${padL("errors", 8)}${padL("÷ plain", 9)}`,
    row("plain node 10 KB", plain, 1),
    ...serverRows("Embedded database (PGlite)", atelier.pglite, ratios.pglite, verdicts.pglite),
    ...serverRows("PostgreSQL", atelier.postgres, ratios.postgres, verdicts.postgres),
    "Framework floor — the same markup and hydration data, React Router and React alone (bench/floor)",
    ...(floor.error ? [`  ${floor.error}`] : []),
    row("  home page", floor.pages?.home, ratios.floor.home),
    row("  home page signed in", floor.pages?.homeSignedIn, ratios.floor.homeSignedIn),
    row("  dashboard home", floor.pages?.dashboard, ratios.floor.dashboard),
    row("  text-to-image studio", floor.pages?.studio, ratios.floor.studio),
    `  memory (VmRSS)          after the loads ${floor.memoryAfterLoad?.rssMiB ?? "–"} MiB`,
    "",
    "first-load JavaScript (gzip, KiB)",
    ...(js && !js.error
      ? Object.entries(js).map(
          ([path, r]) =>
            `  ${pad(path, 24)}${padL(r.gzipKiB, 8)}  (${r.files} files)${mark(r.gzipKiB <= BUDGETS.firstLoadJavaScript.maxGzipKiB)}`,
        )
      : [`  ${js?.error ?? "not measured"}`]),
    "Lighthouse mobile (median of 3): performance, accessibility, SEO, LCP, TBT, CLS",
    ...lighthouseRows(lh, verdicts.pglite?.lighthouse),
    "Lighthouse mobile signed in as an admin (median of 3)",
    ...lighthouseRows(lhs, verdicts.pglite?.lighthouseSignedIn),
    "",
    holdRow("holds PGlite", holds.pglite),
    `${holdRow("holds PostgreSQL", holds.postgres)}${mark(holds.withinBudget ?? undefined)}`,
    ...genRows("jobs PGlite", generation.pglite),
    ...genRows("jobs PostgreSQL", generation.postgres, generation.withinBudget ?? undefined),
    generationPathRow(generationPath),
    keyRow("keys PGlite", apiKeys.pglite),
    keyRow("keys PostgreSQL", apiKeys.postgres),
    chatRow("chat PGlite", chat.pglite),
    `${chatRow("chat PostgreSQL", chat.postgres)}${mark(chat.withinBudget ?? undefined)}`,
    `console (${adminOverview.users ?? "–"} accounts, ${adminOverview.generations ?? "–"} generations)`,
    overviewRow("  PGlite", adminOverview.pglite),
    overviewRow("  PostgreSQL", adminOverview.postgres, adminOverview.withinBudget ?? undefined),
    rollingRow(rollingRestart),
    toolsRow(tools),
    provenanceRow(provenance),
    classifierRow(classifier),
    exploreRow(explore),
    "",
  ];
  process.stdout.write(lines.join("\n") + "\n");
}

/** Runs one of the database benchmarks (they talk to the databases directly) and reads its JSON line. */
function benchScript(file, timeoutMs, { nodeArgs = [], env = process.env } = {}) {
  const run = spawnSync(process.execPath, [...nodeArgs, join(benchDir, file)], {
    cwd: root,
    encoding: "utf8",
    timeout: timeoutMs,
    env,
  });
  try {
    return JSON.parse(run.stdout.trim().split("\n").at(-1));
  } catch {
    return { error: (run.stderr || "no output").slice(-2000) };
  }
}

function benchHolds() {
  const holds = benchScript("holds.mjs", 180_000);
  const rate = holds.postgres?.separateAccounts?.holdsPerSecond;
  holds.withinBudget = typeof rate === "number" ? rate >= BUDGETS.holds.minPerSecondPostgres : null;
  return holds;
}

function benchChat() {
  const chat = benchScript("chat.mjs", 300_000);
  const within = (r) =>
    typeof r?.timeToFirstTokenMs?.addedP50 === "number"
      ? r.timeToFirstTokenMs.addedP50 <= BUDGETS.chat.maxAddedTtftMs && r.concurrent.exact && r.concurrent.ledgerAddsUp
      : null;
  chat.withinBudget = within(chat.postgres) ?? within(chat.pglite);
  return chat;
}

function chatRow(name, r) {
  if (!r?.timeToFirstTokenMs) return `${name.padEnd(18)}${r?.error ?? r?.skipped ?? "not measured"}`;
  const t = r.timeToFirstTokenMs;
  const c = r.concurrent;
  return `${name.padEnd(18)}first token ${t.throughAtelier.p50} ms (provider ${t.provider.p50} ms, +${t.addedP50} ms); ${c.asked} at once: ${c.started} started of ${c.covered} covered, balance ${c.balance}, ledger ${c.ledgerAddsUp ? "adds up" : "does NOT add up"}`;
}

function benchOverview() {
  const overview = benchScript("overview.mjs", 600_000);
  const p50 = overview.postgres?.overview?.["90d"]?.p50Ms;
  overview.withinBudget = typeof p50 === "number" ? p50 <= BUDGETS.adminOverview.maxP50MsPostgres : null;
  return overview;
}

function benchGeneration() {
  const generation = benchScript("generation.mjs", 900_000);
  const median = generation.postgres?.idlePickupMs?.p50;
  generation.withinBudget = typeof median === "number" ? median <= BUDGETS.pickup.maxMedianMsPostgres : null;
  return generation;
}

/** bench/generation-path.mjs: the generation path's own overhead, and finished images per second by workers. */
function benchGenerationPath() {
  const path = benchScript("generation-path.mjs", 900_000);
  const b = BUDGETS.generationPath;
  path.withinBudget =
    typeof path.idle?.submitToRunningMs?.p50 === "number" && typeof path.scaling?.twoOverOne === "number"
      ? {
          submitToRunning: path.idle.submitToRunningMs.p50 <= b.maxSubmitToRunningP50Ms,
          scaling: path.scaling.twoOverOne >= b.minTwoWorkersOverOne,
        }
      : null;
  return path;
}

function generationPathRow(r) {
  const name = "generation path".padEnd(18);
  if (!r?.idle) return `${name}${r?.skipped ?? r?.error?.slice(0, 300) ?? "not measured"}`;
  const v = r.withinBudget ?? {};
  const mark = (ok) => (ok ? " ok" : " ✗");
  const rates = Object.entries(r.workers ?? {})
    .map(([count, w]) => `${count} × ${w.finishedPerSecond}/s`)
    .join(", ");
  return `${name}one at a time: submit → running p50 ${r.idle.submitToRunningMs.p50} ms (p99 ${r.idle.submitToRunningMs.p99})${mark(v.submitToRunning)}, POST p50 ${r.idle.postMs.p50} ms, submit → succeeded on the poll p50 ${r.idle.submitToSucceededPolledMs.p50} ms (p99 ${r.idle.submitToSucceededPolledMs.p99}); workers ${rates}; 2 ÷ 1 ${r.scaling?.twoOverOne}${mark(v.scaling)}, 4 ÷ 1 ${r.scaling?.fourOverOne}`;
}

/** bench/rolling-restart.mjs: two web processes on PostgreSQL restarted one after the other under load. */
function benchRollingRestart() {
  const rolling = benchScript("rolling-restart.mjs", 600_000);
  rolling.withinBudget =
    typeof rolling.requests === "number"
      ? rolling.cut + rolling.noBackend + rolling.serverErrors + rolling.failed <= BUDGETS.rollingRestart.maxCutOr5xx
      : null;
  return rolling;
}

function rollingRow(r) {
  const name = "rolling restart".padEnd(18);
  if (typeof r?.requests !== "number") return `${name}${r?.error ?? r?.skipped ?? "not measured"}`;
  return `${name}${r.requests} requests through the balancer in ${r.loadSeconds} s: ${r.cut} cut, ${r.noBackend} with no backend, ${r.serverErrors} 5xx; restart of both processes ${r.restartMs} ms${r.withinBudget ? "" : "  ✗"}`;
}

/** bench/tools.mjs: a 10 MB input and a mask through the studio's upload and submit; the tools' pages' JavaScript. */
function benchTools() {
  const tools = benchScript("tools.mjs", 900_000);
  const api = tools.postgres?.withinBudget ?? tools.pglite?.withinBudget ?? null;
  const pages = tools.pglite?.firstLoadJavaScript?.withinBudget ?? null;
  tools.withinBudget = api === null || pages === null ? null : api && pages;
  return tools;
}

function toolsRow(r) {
  const name = "tools".padEnd(18);
  const db = r?.pglite;
  if (!db?.uploadInput) return `${name}${r?.error ?? db?.error ?? "not measured"}`;
  const ms = (x) => (typeof x?.p50Ms === "number" ? `${x.p50Ms} ms` : (x?.error ?? "–").slice(0, 60));
  const js = db.firstLoadJavaScript;
  const pages = js?.pages ? Object.values(js.pages).filter((p) => p.tool && p.status === 200) : [];
  const heaviest = pages.length ? Math.max(...pages.map((p) => p.gzipKiB)) : null;
  const editor = js?.maskEditor ? `${js.maskEditor.gzipKiB} KiB` : "none in the build";
  return `${name}PGlite p50: upload input ${ms(db.uploadInput)}, mask ${ms(db.uploadMask)}; submit image-to-image ${ms(db.submitImageToImage)}, inpaint ${ms(db.submitInpaint)}; mask leg ${db.maskLegRatio ?? "–"}× the input's; first-load JS: dashboard ${js?.referenceKiB ?? "–"} KiB, heaviest tool page ${heaviest ?? "–"} KiB; mask editor chunk ${editor}${r.withinBudget === false ? "  ✗" : ""}`;
}

/** bench/provenance.mjs: marking an output with its provenance as it is stored. */
function benchProvenance() {
  return benchScript("provenance.mjs", 300_000);
}

function provenanceRow(r) {
  const name = "provenance".padEnd(18);
  if (!r?.images) return `${name}${r?.error ?? "not measured"}`;
  const images = Object.entries(r.images)
    .map(([f, x]) => `${f} ${x.embed.p50Ms} ms (encoding again: ${x.reencodeWithSharp.p50Ms} ms)`)
    .join(", ");
  const c2pa = r.c2pa?.png
    ? `\n${"".padEnd(18)}C2PA signature (apart from the budget), p50: png ${r.c2pa.png.p50Ms} ms (${Math.round(r.c2pa.png.bytes / 1024)} KiB), png of random pixels ${r.c2pa.pngRandomPixels?.p50Ms} ms (${Math.round((r.c2pa.pngRandomPixels?.bytes ?? 0) / 1024)} KiB), jpeg ${r.c2pa.jpeg.p50Ms} ms (${Math.round(r.c2pa.jpeg.bytes / 1024)} KiB); the first, loading the library, ${r.c2pa.firstSignatureMs} ms`
    : `\n${"".padEnd(18)}C2PA signature: ${r.c2pa?.skipped ?? r.c2pa?.error ?? "not measured"}`;
  return `${name}XMP into a 1024×1024 ${images}; a ${Math.round(r.video.mp4.bytes / 1024)} KiB MP4 ${r.video.mp4.embed.p50Ms} ms${r.withinBudget ? "  ok" : "  OVER BUDGET"}${c2pa}`;
}

/**
 * bench/classifier.mjs: the offline image classifier. Run with the memory settings scripts/start.mjs gives the web
 * and worker processes (V8 flags, two glibc arenas), where the classifier would run: they change what it adds.
 */
function benchClassifier() {
  return benchScript("classifier.mjs", 300_000, {
    nodeArgs: ["--max-semi-space-size=8", "--heap-growing-percent=30"],
    env: { ...process.env, MALLOC_ARENA_MAX: "2" },
  });
}

function classifierRow(r) {
  const name = "classifier".padEnd(18);
  if (!r?.perImage) return `${name}${r?.error ?? "not measured"}`;
  const m = r.memoryMiB;
  return `${name}${r.backend}: load ${r.loadMs} ms; per 1024×1024 image p50 ${r.perImage.p50Ms} ms, p95 ${r.perImage.p95Ms} ms; +${m.addedByLoad} MiB resident loaded, +${m.addedAfterRuns} MiB after ${r.perImage.runs} images, +${m.keptAfterStop} MiB kept once stopped; calling thread's loop p99 ${r.callingThreadEventLoopDelay.p99Ms} ms${r.withinBudget ? "  ok" : "  OVER BUDGET"}`;
}

/** bench/explore.mjs: search and listing among a million public results, and likes, on PostgreSQL. */
function benchExplore() {
  const explore = benchScript("explore.mjs", 1_800_000);
  const pg = explore.postgres;
  explore.withinBudget =
    typeof pg?.searchP95WorstMs === "number" && typeof pg?.likes?.likesPerSecond === "number"
      ? pg.searchP95WorstMs <= BUDGETS.explore.maxSearchP95MsPostgres &&
        pg.likes.likesPerSecond >= BUDGETS.explore.minLikesPerSecondPostgres
      : null;
  return explore;
}

function exploreRow(r) {
  const name = "explore".padEnd(18);
  const pg = r?.postgres;
  if (!pg?.searches) return `${name}${r?.error ?? pg?.error?.slice(0, 200) ?? pg?.skipped ?? "not measured"}`;
  const lists = pg.lists.map((l) => `${l.name} p95 ${l.p95} ms`).join(", ");
  return `${name}PostgreSQL, ${r.rows} public results (seeded in ${pg.seedSeconds} s): ${lists}; search p95 worst ${pg.searchP95WorstMs} ms over ${pg.searches.length} queries; likes ${pg.likes.likesPerSecond}/s with ${pg.likes.clients} clients (p99 ${pg.likes.latencyMs.p99} ms)${r.withinBudget === false ? "  ✗" : r.withinBudget ? "  ok" : ""}`;
}

/** bench/overload.mjs: twice the measured capacity for a minute, on both databases. */
function benchOverload() {
  const result = benchScript("overload.mjs", 900_000);
  const within = (r) => {
    if (typeof r?.servedLatencyMs?.p99 !== "number") return null;
    const probesAnswered = Object.values(r.probes).every((p) => p.answered === p.sent);
    return (
      r.servedLatencyMs.p99 <= BUDGETS.overload.maxServedP99Ms &&
      r.refusedWithRetryAfter === r.refused &&
      r.otherStatuses === 0 &&
      probesAnswered &&
      r.images.nothingLost
    );
  };
  const verdicts = [within(result.pglite), within(result.postgres)].filter((v) => v !== null);
  result.withinBudget = verdicts.length ? verdicts.every(Boolean) : null;
  return result;
}

function overloadRow(r) {
  const one = (name, o) => {
    if (typeof o?.servedLatencyMs?.p99 !== "number") return `${name}: ${o?.error ?? o?.skipped ?? "not measured"}`;
    const probes = Object.entries(o.probes)
      .map(([k, p]) => `${k} ${p.answered}/${p.sent}`)
      .join(", ");
    return `${name}: capacity ${o.capacity.requestsPerSecond}/s, sent ${o.offeredPerSecond}/s: served ${o.servedPerSecond}/s p99 ${o.servedLatencyMs.p99} ms, refused ${o.refused} (p99 ${o.refusedLatencyMs.p99} ms, ${o.refusedWithRetryAfter} with Retry-After), other ${o.otherStatuses}; ${probes}; images ${o.images.accepted} accepted, ${o.images.nothingLost ? "all charged once" : "NOT charged once each"}`;
  };
  return `${"overload".padEnd(18)}${one("PGlite", r.pglite)}\n${"".padEnd(18)}${one("PostgreSQL", r.postgres)}${r.withinBudget === false ? "  ✗" : r.withinBudget ? "  ok" : ""}`;
}

/** bench/footprint.mjs: a newcomer's first start and a restart, on the process tree, against a 1 GiB server. */
function benchFootprint() {
  const result = benchScript("footprint.mjs", 900_000);
  const b = BUDGETS.footprint;
  const f = result.firstStart;
  result.withinBudget =
    typeof f?.peakMiB?.build === "number" && typeof result.restart?.readyzMs === "number"
      ? {
          build: f.peakMiB.build <= b.maxBuildPeakMiB && f.buildSeconds <= b.maxBuildSeconds,
          openAndMigrate: f.peakMiB.openAndMigrate <= b.maxOpenPeakMiB,
          readyAndLoad: Math.max(f.readyMiB, result.load.peakMiB) <= b.maxReadyMiB,
          restart: result.restart.readyzMs <= b.maxRestartReadyzMs,
        }
      : null;
  return result;
}

function footprintRow(r) {
  const name = "footprint".padEnd(18);
  const f = r?.firstStart;
  if (!f?.peakMiB || !r.restart) return `${name}${r?.error?.slice(0, 300) ?? "not measured"}`;
  const v = r.withinBudget ?? {};
  const mark = (ok) => (ok ? " ok" : " ✗");
  return `${name}first start: build ${f.buildSeconds} s peak ${f.peakMiB.build} MiB${mark(v.build)}, open and migrate peak ${f.peakMiB.openAndMigrate} MiB${mark(v.openAndMigrate)}, ready ${f.readyMiB} MiB; load peak ${r.load.peakMiB} MiB, after ${r.load.afterMiB} MiB${mark(v.readyAndLoad)}; restart /readyz ${r.restart.readyzMs} ms${mark(v.restart)} peak ${r.restart.peakMiB} MiB`;
}

/**
 * Lighthouse alone (`npm run bench -- lighthouse`): Atelier on the embedded database as the full run starts it, the
 * public pages, then the signed-in ones as an admin; the same figures as the full run's, in a few minutes.
 */
async function benchLighthouse() {
  const dataDir = mkdtempSync(join(os.tmpdir(), "atelier-bench-lighthouse-"));
  tempDirs.add(dataDir);
  const port = await sparePort();
  const base = `http://${HOST}:${port}`;
  const env = {
    ...process.env,
    PORT: String(port),
    HOST,
    SITE_URL: base,
    DATA_DIR: dataDir,
    LOG_LEVEL: "warn",
    NODE_ENV: "production",
    SHUTDOWN_DELAY_SECONDS: "0",
  };
  delete env.DATABASE_URL; // the embedded database, as the full run's Lighthouse
  const web = startWeb(env);
  try {
    await waitReady(base, web);
    const cookie = await signUp(base, dataDir);
    const result = { public: await lighthouseScores(base, LIGHTHOUSE_PAGES) };
    result.signedIn = await signedInLighthouse(base, env, cookie).catch((error) => ({
      error: String(error.message ?? error),
    }));
    result.withinBudget = {
      public: lighthouseWithin(result.public, BUDGETS.lighthouse),
      signedIn: lighthouseWithin(result.signedIn, BUDGETS.lighthouseSignedIn),
    };
    return result;
  } finally {
    web.child.kill("SIGTERM");
    await Promise.race([web.exited, sleep(LIMITS.shutdownMs)]);
    removeTempDirs();
  }
}

function lighthouseRow(r) {
  const name = "lighthouse".padEnd(18);
  const line = (scores) =>
    scores && !scores.error && !scores.skipped
      ? Object.entries(scores)
          .map(([path, x]) => `${path} ${x.performance}/${x.accessibility} (TBT ${x.tbtMs} ms)`)
          .join(", ")
      : (scores?.error ?? scores?.skipped ?? "not measured");
  return `${name}performance/accessibility, mobile, median of 3 — public: ${line(r?.public)}\n${"".padEnd(18)}signed in as an admin: ${line(r?.signedIn)}`;
}

/** Scenarios that can be run alone (`npm run bench -- <name>`): their figures replace theirs in latest.json. */
const SCENARIOS = {
  "rolling-restart": { key: "rollingRestart", run: benchRollingRestart, row: rollingRow },
  tools: { key: "tools", run: benchTools, row: toolsRow },
  // Measures the use cases in-process on PostgreSQL; the server's build plays no part.
  explore: { key: "explore", run: benchExplore, row: exploreRow, build: false },
  provenance: { key: "provenance", run: benchProvenance, row: provenanceRow },
  // Measures a module in-process; the server's build plays no part.
  classifier: { key: "classifier", run: benchClassifier, row: classifierRow, build: false },
  overload: { key: "overload", run: benchOverload, row: overloadRow },
  "generation-path": { key: "generationPath", run: benchGenerationPath, row: generationPathRow },
  lighthouse: { key: "lighthouse", run: benchLighthouse, row: lighthouseRow },
  // Removes the build and makes it again, measured: what a fresh clone's `npm start` does.
  footprint: { key: "footprint", run: benchFootprint, row: footprintRow, build: false },
};

async function runOnly(names) {
  const unknown = names.filter((name) => !(name in SCENARIOS));
  if (unknown.length) {
    throw new StartError(
      `unknown scenario ${unknown.join(", ")}; these run alone: ${Object.keys(SCENARIOS).join(", ")}`,
    );
  }
  if (names.some((name) => SCENARIOS[name].build !== false) && isBuildStale(root)) {
    process.stderr.write("bench: building…\n");
    await runBuild();
  }
  const file = join(resultsDir, "latest.json");
  let report;
  try {
    report = JSON.parse(readFileSync(file, "utf8"));
  } catch {
    report = { results: {} };
  }
  report.results ??= {};
  report.budgets = BUDGETS;
  for (const name of names) {
    const scenario = SCENARIOS[name];
    process.stderr.write(`bench: ${name}…\n`);
    report.results[scenario.key] = { date: new Date().toISOString(), ...(await scenario.run()) };
    process.stdout.write(`${scenario.row(report.results[scenario.key])}\n`);
  }
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  process.stdout.write("Written to bench/results/latest.json\n");
}

const ratio = (a, b) => (typeof a === "number" && b > 0 ? round(a / b, 4) : null);

/** Each measure as a share of the plain server's requests per second. */
function ratiosOf(a, plain, floor) {
  if (!a?.healthz) return null;
  const r = (m) => ratio(m?.requestsPerSecond, plain.requestsPerSecond);
  const ofFloor = (m, name) => ratio(m?.requestsPerSecond, floor?.pages?.[name]?.requestsPerSecond);
  return {
    homeSignedIn: r(a.homeSignedIn),
    studio: r(a.studio),
    ofFloor: {
      dashboard: ofFloor(a.dashboard, "dashboard"),
      studio: ofFloor(a.studio, "studio"),
      homeSignedIn: ofFloor(a.homeSignedIn, "homeSignedIn"),
    },
    healthz: r(a.healthz),
    pages: Object.fromEntries(
      Object.entries(a.pages).map(([path, m]) => [path, { uncached: r(m.uncached), cached: r(m.cached) }]),
    ),
    dashboard: r(a.dashboard),
    explore: { cached: r(a.explore?.cached), signedIn: r(a.explore?.signedIn) },
    apiGeneration: r(a.apiGeneration),
  };
}

const clean = (m) => m && m.non2xx === 0 && m.errors === 0;

/** Each page's Lighthouse scores against `budget` (the limits it names); null when Lighthouse did not run. */
function lighthouseWithin(scores, budget) {
  if (!scores || scores.error || scores.skipped) return null;
  const within = (x) =>
    x.performance >= budget.minPerformance &&
    x.accessibility >= budget.minAccessibility &&
    (budget.minSeo === undefined || x.seo >= budget.minSeo) &&
    (budget.maxCls === undefined || x.cls <= budget.maxCls) &&
    (budget.maxTbtMs === undefined || x.tbtMs <= budget.maxTbtMs);
  return Object.fromEntries(Object.entries(scores).map(([path, x]) => [path, within(x)]));
}

/** Which budgets a server's figures keep (null: not measured there). */
function verdictsOf(a, r, postgres) {
  if (!a?.healthz || !r) return {};
  const home = a.pages["/"].uncached;
  return {
    homeUncached:
      clean(home) &&
      r.pages["/"].uncached >= BUDGETS.homeUncached.minRatio &&
      home.latencyMs.p99 <= BUDGETS.homeUncached.maxP99Ms,
    cachedPages: Object.fromEntries(
      Object.entries(r.pages).map(([path, x]) => [
        path,
        clean(a.pages[path].cached) && x.cached >= BUDGETS.cachedPage.minRatio,
      ]),
    ),
    dashboard: clean(a.dashboard) && r.dashboard >= BUDGETS.dashboard.minRatio,
    ofFloor: {
      dashboard: clean(a.dashboard) && r.ofFloor.dashboard >= BUDGETS.ofFloor.minDashboard,
      studio: clean(a.studio) && r.ofFloor.studio >= BUDGETS.ofFloor.minStudio,
      homeSignedIn: clean(a.homeSignedIn) && r.ofFloor.homeSignedIn >= BUDGETS.ofFloor.minHomeSignedIn,
    },
    // Explore: from the cache as any public page, rendered for a signed-in visitor as the dashboard.
    exploreCached: clean(a.explore?.cached) && r.explore.cached >= BUDGETS.cachedPage.minRatio,
    exploreSignedIn: clean(a.explore?.signedIn) && r.explore.signedIn >= BUDGETS.dashboard.minRatio,
    apiPoll: postgres ? clean(a.apiGeneration) && r.apiGeneration >= BUDGETS.apiPoll.minRatioPostgres : null,
    healthz: clean(a.healthz) && r.healthz >= BUDGETS.healthz.minRatio,
    homeHtml: a.homePage.bytes <= BUDGETS.homeHtml.maxBytes,
    memory: postgres
      ? a.memoryAfterLoad.rssMiB !== null && a.memoryAfterLoad.rssMiB <= BUDGETS.memory.maxRssMiBPostgres
      : null,
    firstLoadJavaScript:
      a.firstLoadJavaScript && !a.firstLoadJavaScript.error
        ? Object.values(a.firstLoadJavaScript).every((x) => x.gzipKiB <= BUDGETS.firstLoadJavaScript.maxGzipKiB)
        : null,
    lighthouseSignedIn: lighthouseWithin(a.lighthouseSignedIn, BUDGETS.lighthouseSignedIn),
    lighthouse: lighthouseWithin(a.lighthouse, BUDGETS.lighthouse),
  };
}

async function main() {
  const only = process.argv.slice(2);
  if (only.length) return runOnly(only);
  const date = new Date().toISOString();
  // Other work on the machine skews every number here; the load average before and after makes that visible.
  const loadAverageAtStart = os.loadavg().map((n) => round(n));
  process.stderr.write("bench: building…\n");
  const buildMs = await runBuild();

  process.stderr.write(`bench: plain Node server, ${LOAD.connections} connections, ${LOAD.durationSeconds} s…\n`);
  const plain = await benchPlain();

  process.stderr.write("bench: Atelier on the embedded database (pages, dashboard, API, memory, browser)…\n");
  const atelier = { pglite: await benchAtelier({ browser: true }) };

  process.stderr.write("bench: Atelier on PostgreSQL (pages, dashboard, API, memory)…\n");
  let database = null;
  try {
    database = await benchDatabase();
    atelier.postgres = database
      ? await benchAtelier({ databaseUrl: database.url, browser: false })
      : { skipped: "no PostgreSQL server binaries and no BENCH_DATABASE_URL" };
  } catch (error) {
    if (error instanceof StartError) throw error;
    atelier.postgres = { error: String(error.message ?? error) };
  } finally {
    await database?.dispose();
  }

  process.stderr.write("bench: the framework's floor for the home page, the dashboard and a studio…\n");
  const floor = await benchFloor(atelier.postgres?.captured ?? atelier.pglite?.captured);

  process.stderr.write("bench: credit holds, 20 clients, on PGlite and PostgreSQL…\n");
  const holds = benchHolds();

  process.stderr.write("bench: generation jobs (offline image model) on PGlite and PostgreSQL…\n");
  const generation = benchGeneration();

  process.stderr.write("bench: the generation path with a provider that answers at once, 1, 2 and 4 workers…\n");
  const generationPath = benchGenerationPath();

  process.stderr.write("bench: API key verification on PGlite and PostgreSQL…\n");
  const apiKeys = benchScript("api-keys.mjs", 180_000);

  process.stderr.write("bench: the chat's first token and 200 answers at once, on PGlite and PostgreSQL…\n");
  const chat = benchChat();

  process.stderr.write("bench: the console's overview on a large database, on PGlite and PostgreSQL…\n");
  const adminOverview = benchOverview();

  process.stderr.write("bench: a rolling restart of two web processes on PostgreSQL under load…\n");
  const rollingRestart = benchRollingRestart();

  process.stderr.write("bench: the tools: a 10 MB input and a mask, and the tools' pages' JavaScript…\n");
  const tools = benchTools();

  process.stderr.write("bench: marking outputs with their provenance…\n");
  const provenance = benchProvenance();

  process.stderr.write("bench: explore among a million public results, and likes, on PostgreSQL…\n");
  const explore = benchExplore();

  process.stderr.write("bench: the offline image classifier (load, time per image, memory)…\n");
  const classifier = benchClassifier();

  const ratios = {
    pglite: ratiosOf(atelier.pglite, plain, floor),
    postgres: ratiosOf(atelier.postgres, plain, floor),
    floor: Object.fromEntries(
      Object.entries(floor.pages ?? {}).map(([name, m]) => [name, ratio(m.requestsPerSecond, plain.requestsPerSecond)]),
    ),
  };
  const verdicts = {
    pglite: verdictsOf(atelier.pglite, ratios.pglite, false),
    postgres: verdictsOf(atelier.postgres, ratios.postgres, true),
  };

  const cpus = os.cpus();
  const report = {
    date,
    node: process.version,
    cpus: { count: cpus.length, model: cpus[0]?.model?.trim() ?? "unknown" },
    machine: {
      platform: os.platform(),
      release: os.release(),
      arch: os.arch(),
      totalMemoryMiB: Math.round(os.totalmem() / 1024 / 1024),
      loadAverageAtStart,
      loadAverageAtEnd: os.loadavg().map((n) => round(n)),
    },
    settings: { ...LOAD, host: HOST, buildMs: Math.round(buildMs) },
    results: {
      plain,
      atelier,
      floor,
      ratios,
      verdicts,
      holds,
      generation,
      generationPath,
      apiKeys,
      adminOverview,
      chat,
      rollingRestart,
      tools,
      provenance,
      classifier,
      explore,
    },
    budgets: BUDGETS,
  };

  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(join(resultsDir, "latest.json"), `${JSON.stringify(report, null, 2)}\n`);
  printTable(report);
  process.stdout.write(`Written to bench/results/latest.json\n`);
}

try {
  await main();
  process.exit(0);
} catch (error) {
  currentLoad?.stop();
  killAll();
  removeTempDirs();
  process.stderr.write(`bench: ${error instanceof StartError ? error.message : (error.stack ?? error)}\n`);
  process.exit(1);
}
