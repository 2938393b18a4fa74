// Footprint: what `npm start` asks of a small server, measured on its whole process tree (the start script, the build
// it runs, the server), the way a newcomer meets it: no build, an empty data folder, the embedded database.
//
// 1. First start: the build is removed; `node scripts/start.mjs` builds, opens and migrates a new embedded database
//    and gets ready. Peaks: the build (until it says "Built in"), then opening and migrating (until /readyz answers
//    200), and the resident memory once ready.
// 2. Load: an account signs up; the signed-in dashboard home, then the home page, at 8 connections for 10 s each.
//    Peak during the load, resident memory after it.
// 3. Restart: SIGTERM, then the same command again (built, the database there): time to /readyz 200 and to the home
//    page's first 200, and the peak meanwhile.
//
// The tree's memory is the sum of its processes' resident sets, read from /proc every 50 ms. Prints one JSON object.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { signUp } from "./account.mjs";
import { sparePort } from "./postgres.mjs";
import { startWeb, waitReady } from "./web.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const HOST = "127.0.0.1";
// As many connections as the requests worked at once by default (MAX_CONCURRENT_REQUESTS): memory under load, not
// refusals, is measured here
const LOAD = { connections: 8, seconds: 10, paths: ["/dashboard/home", "/"] };
const SAMPLE_MS = 50;

for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => process.exit(130));
const mib = (kib) => Math.round(kib / 1024);

/** The resident memory of `pid` and all its descendants, in KiB. */
function treeKiB(pid) {
  const children = new Map();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // The process ended meanwhile
    }
  }
  let total = 0;
  const queue = [pid];
  while (queue.length) {
    const next = queue.pop();
    try {
      total += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${next}/status`, "utf8"))?.[1] ?? 0);
    } catch {
      // The process ended meanwhile
    }
    queue.push(...(children.get(next) ?? []));
  }
  return total;
}

/** Samples the tree under `pid` from phase `first`; `mark(name)` starts the next, `end()` gives each one's peak in MiB. */
function sampler(pid, first) {
  const peaks = {};
  let phase = first;
  const sample = () => {
    peaks[phase] = Math.max(peaks[phase] ?? 0, treeKiB(pid));
  };
  const timer = setInterval(sample, SAMPLE_MS);
  return {
    mark(name) {
      sample();
      phase = name;
      sample();
    },
    now: () => mib(treeKiB(pid)),
    end() {
      clearInterval(timer);
      sample();
      return Object.fromEntries(Object.entries(peaks).map(([k, v]) => [k, mib(v)]));
    },
  };
}

async function firstOk(url, deadlineMs) {
  const started = performance.now();
  while (performance.now() - started < deadlineMs) {
    const ok = await fetch(url, { signal: AbortSignal.timeout(5_000) })
      .then((r) => r.ok)
      .catch(() => false);
    if (ok) return performance.now();
    await sleep(20);
  }
  throw new Error(`${url} did not answer 200 within ${deadlineMs} ms`);
}

const load = (url, cookie) =>
  new Promise((resolve, reject) =>
    autocannon({ url, connections: LOAD.connections, duration: LOAD.seconds, headers: { cookie } }, (error, result) =>
      error ? reject(error) : resolve(result),
    ),
  );

async function main() {
  const dataDir = mkdtempSync(join(os.tmpdir(), "atelier-footprint-"));
  const port = await sparePort();
  const base = `http://${HOST}:${port}`;
  const env = {
    ...process.env,
    DATA_DIR: dataDir,
    SITE_URL: base,
    LOG_LEVEL: "warn",
    PAGE_RATE_LIMIT_PER_MINUTE: "1000000",
    SHUTDOWN_DELAY_SECONDS: "0",
  };
  delete env.DATABASE_URL;
  delete env.NODE_OPTIONS;
  const result = { database: "pglite", settings: { load: LOAD, sampleMs: SAMPLE_MS } };
  try {
    // 1. First start
    rmSync(join(root, "build"), { recursive: true, force: true });
    let started = performance.now();
    let web = startWeb(env, { port, host: HOST });
    let tree = sampler(web.child.pid, "build");
    let built = null;
    web.child.stderr.on("data", (chunk) => {
      if (built === null && /Built in/.test(chunk.toString())) {
        built = performance.now();
        tree.mark("open");
      }
    });
    await waitReady(base, web, 600_000);
    const ready = performance.now();
    tree.mark("ready");
    await sleep(3_000);
    const readyMiB = tree.now();
    const first = tree.end();
    result.firstStart = {
      buildSeconds: built === null ? null : Math.round((built - started) / 100) / 10,
      readySeconds: Math.round((ready - started) / 100) / 10,
      openToReadyMs: built === null ? null : Math.round(ready - built),
      peakMiB: {
        build: first.build ?? null,
        openAndMigrate: first.open ?? null,
        firstSecondsReady: first.ready ?? null,
      },
      readyMiB,
    };

    // 2. Load
    const cookie = await signUp(base, dataDir);
    tree = sampler(web.child.pid, "load");
    result.load = {};
    for (const path of LOAD.paths) {
      const r = await load(`${base}${path}`, cookie);
      result.load[path] = { requestsPerSecond: r.requests.average, p99Ms: r.latency.p99, non2xx: r.non2xx };
    }
    await sleep(2_000);
    const afterLoadMiB = tree.now();
    result.load.peakMiB = tree.end().load;
    result.load.afterMiB = afterLoadMiB;

    // 3. Restart
    web.child.kill("SIGTERM");
    await web.exited;
    started = performance.now();
    web = startWeb(env, { port, host: HOST });
    tree = sampler(web.child.pid, "restart");
    const readyz = await firstOk(`${base}/readyz`, 120_000);
    const home = await firstOk(`${base}/`, 120_000);
    await sleep(3_000);
    result.restart = {
      readyzMs: Math.round(readyz - started),
      homeMs: Math.round(home - started),
      peakMiB: tree.end().restart,
    };
    web.child.kill("SIGTERM");
    await web.exited;
  } catch (error) {
    result.error = String(error.message ?? error).slice(0, 4000);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  result.machine = { cpus: os.availableParallelism(), memoryMiB: Math.round(os.totalmem() / 1048576) };
  result.node = process.version;
  result.commit = (() => {
    try {
      return execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root, encoding: "utf8" }).trim();
    } catch {
      return null;
    }
  })();
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

await main();
process.exit(0);
