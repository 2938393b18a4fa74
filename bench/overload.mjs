// Overload: one web process (`npm start`'s) driven at twice its measured capacity for a minute.
//
// 1. Capacity: the signed-in dashboard home (rendered for every request) under 50 connections for 10 s, requests/s.
// 2. Overload: requests sent at twice that rate on a fixed schedule (open loop: a request is sent when it is due,
//    whether or not earlier ones were answered), for 60 s; nine in ten for /dashboard/home, one in ten for
//    /fr/dashboard/home. Each answer's status and time are kept: those served (200) and those refused (503), whether
//    each refusal carried Retry-After and the busy page in its language.
// 3. Meanwhile, at a few per second each: /healthz, /readyz, the public API's status poll of a generation, a Stripe
//    webhook (refused for its signature: what counts is that it is answered and not shed), and new images through the
//    public API. After the load, the images accepted (201) must be the account's new generations, each charged once:
//    nothing half-made, nothing lost.
//
// Run on the embedded database, then on PostgreSQL when one can be had. Needs the build (bench/run.mjs makes it).
// Prints one JSON object on stdout.
import http from "node:http";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { samePage, signUp } from "./account.mjs";
import { benchDatabase, sparePort } from "./postgres.mjs";
import { startWeb, waitReady } from "./web.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const HOST = "127.0.0.1";
const SETTINGS = {
  capacity: { path: "/dashboard/home", connections: 50, seconds: 10, warmupSeconds: 3 },
  overload: { factor: 2, seconds: 60, frenchShare: 0.1 },
  // Requests per second of each probe during the overload.
  probes: { healthz: 5, readyz: 5, poll: 5, webhook: 2, images: 3 },
  requestTimeoutMs: 30_000,
};
const READY_MS = 180_000;
const busyText = (locale) => JSON.parse(readFileSync(join(root, "locales", locale, "common.json"), "utf8")).error.busy;
const escapeHtml = (s) =>
  s.replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch]);

for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => process.exit(130));

const round = (n, d = 1) => Math.round(n * 10 ** d) / 10 ** d;
function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  return round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]);
}
const latencies = (list) => {
  const sorted = list.toSorted((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: percentile(sorted, 100) };
};

function residentMiB(pid) {
  try {
    const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))[1]);
    return Math.round(kb / 1024);
  } catch {
    return null;
  }
}

// The load's own client: Node's http with kept-alive connections and no bound on their number, bodies read and
// dropped, nothing compressed (as autocannon measures the capacity). fetch cost the load generator, on the same two
// cores as the server, several times more processor time.
const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });

function timed(url, { method = "GET", headers = {}, body } = {}) {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = http.request(url, { method, headers, agent, timeout: SETTINGS.requestTimeoutMs }, (res) => {
      const chunks = [];
      res.on("data", (chunk) => chunks.push(chunk));
      res.on("end", () =>
        resolve({
          status: res.statusCode,
          ms: performance.now() - started,
          retryAfter: res.headers["retry-after"] ?? null,
          body: Buffer.concat(chunks).toString("utf8"),
        }),
      );
      res.on("error", () => resolve({ status: 0, ms: performance.now() - started, error: "response" }));
    });
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", (error) => resolve({ status: 0, ms: performance.now() - started, error: error.message }));
    req.end(body);
  });
}

/** The server's own count of GET pages answered 200, and of those within a second (its duration histogram). */
async function servedPages(base) {
  const text = (await timed(`${base}/metrics`)).body;
  const read = (le) =>
    Number(
      new RegExp(
        `^http_request_duration_seconds_bucket\\{le="${le}",method="GET",route="page",status="200"\\} (\\d+)`,
        "m",
      ).exec(text)?.[1] ?? 0,
    );
  return { withinSecond: read("1"), all: read("\\+Inf") };
}

/** Calls `send()` `rate` times a second on a fixed schedule for `seconds`, without waiting for answers. */
async function openLoop(rate, seconds, send) {
  const pending = [];
  const started = performance.now();
  let sent = 0;
  for (;;) {
    const elapsed = (performance.now() - started) / 1000;
    if (elapsed >= seconds) break;
    const due = Math.floor(elapsed * rate);
    while (sent < due) pending.push(send(sent++));
    await sleep(2);
  }
  return Promise.all(pending);
}

async function apiJson(base, key, method, path, body, headers = {}) {
  const res = await fetch(`${base}/api/v1${path}`, {
    method,
    headers: { Authorization: `Bearer ${key}`, ...(body ? { "Content-Type": "application/json" } : {}), ...headers },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: await res.json().catch(() => null) };
}

/** Waits for a generation to end; its final status. */
async function waitFinished(base, key, id) {
  const deadline = performance.now() + 120_000;
  while (performance.now() < deadline) {
    const { body } = await apiJson(base, key, "GET", `/generations/${id}`);
    if (body && body.status !== "queued" && body.status !== "processing") return body.status;
    await sleep(100);
  }
  throw new Error("an image did not finish");
}

async function overload(databaseUrl) {
  const dataDir = mkdtempSync(join(os.tmpdir(), "atelier-bench-overload-"));
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
    // One address plays every visitor: the per-address bounds are not what is measured.
    PAGE_RATE_LIMIT_PER_MINUTE: "0",
    MAX_CONNECTIONS_PER_ADDRESS: "0",
    API_RATE_LIMIT_PER_MINUTE: "1000000",
    API_ACCOUNT_RATE_LIMIT_PER_MINUTE: "1000000",
    SIGNUP_BONUS_CREDITS: "2000",
    SHUTDOWN_DELAY_SECONDS: "0",
  };
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  else delete env.DATABASE_URL;
  const web = startWeb(env);
  try {
    await waitReady(base, web, READY_MS);
    const cookie = await signUp(base, dataDir);
    const created = await fetch(`${base}/api/keys`, {
      method: "POST",
      headers: { ...samePage(base), Cookie: cookie, "Content-Type": "application/json" },
      body: "{}",
    });
    const { secret: key } = await created.json();
    const first = await apiJson(base, key, "POST", "/images", { model: "demo-image", prompt: "An overloaded harbour" });
    if (first.status !== 201) throw new Error(`the first image answered ${first.status}`);
    if ((await waitFinished(base, key, first.body.id)) !== "succeeded") throw new Error("the first image failed");
    const costEach = (await apiJson(base, key, "GET", `/generations/${first.body.id}`)).body.credits_charged;
    const balanceBefore = (await apiJson(base, key, "GET", "/credits")).body.balance;

    // 1. Capacity.
    const { path, connections, seconds, warmupSeconds } = SETTINGS.capacity;
    const signedIn = { cookie };
    const cannon = (duration) =>
      new Promise((resolve, reject) => {
        const instance = autocannon(
          { url: `${base}${path}`, connections, duration, headers: signedIn, timeout: 30 },
          (error, result) => (error ? reject(error) : resolve(result)),
        );
        autocannon.track(instance, { renderProgressBar: false, renderResultsTable: false });
      });
    await cannon(warmupSeconds);
    const measured = await cannon(seconds);
    const capacity = measured["2xx"] / seconds;
    const capacityShed = measured.non2xx;

    // 2 and 3. Overload with the probes beside it.
    const rate = capacity * SETTINGS.overload.factor;
    const page = (i) =>
      timed(`${base}${i % Math.round(1 / SETTINGS.overload.frenchShare) === 0 ? "/fr" : ""}${path}`, {
        headers: signedIn,
      }).then((r) => ({ ...r, french: i % Math.round(1 / SETTINGS.overload.frenchShare) === 0 }));
    const probe = (n, send) => openLoop(n, SETTINGS.overload.seconds, send);
    const auth = { Authorization: `Bearer ${key}` };
    const serverBefore = await servedPages(base);
    const [pages, healthz, readyz, poll, webhook, images] = await Promise.all([
      openLoop(rate, SETTINGS.overload.seconds, page),
      probe(SETTINGS.probes.healthz, () => timed(`${base}/healthz`)),
      probe(SETTINGS.probes.readyz, () => timed(`${base}/readyz`)),
      probe(SETTINGS.probes.poll, () => timed(`${base}/api/v1/generations/${first.body.id}`, { headers: auth })),
      probe(SETTINGS.probes.webhook, () =>
        timed(`${base}/webhooks/stripe`, {
          method: "POST",
          headers: { "Content-Type": "application/json", "Stripe-Signature": "t=1,v1=00" },
          body: JSON.stringify({ id: "evt_bench", type: "invoice.paid", data: { object: {} } }),
        }),
      ),
      probe(SETTINGS.probes.images, (i) =>
        timed(`${base}/api/v1/images`, {
          method: "POST",
          headers: { ...auth, "Content-Type": "application/json", "Idempotency-Key": `overload-${i}` },
          body: JSON.stringify({ model: "demo-image", prompt: `An overloaded harbour, ${i}` }),
        }),
      ),
    ]);

    const serverAfter = await servedPages(base);

    // What the overload left behind: every image accepted made, every image made charged once (an image whose
    // answer the client gave up waiting for may have been made too).
    const accepted = images.filter((r) => r.status === 201).map((r) => JSON.parse(r.body).id);
    const made = [];
    let cursor = null;
    do {
      const { body } = await apiJson(base, key, "GET", `/generations?limit=100${cursor ? `&cursor=${cursor}` : ""}`);
      made.push(...body.data.map((g) => g.id).filter((id) => id !== first.body.id));
      cursor = body.next_cursor;
    } while (cursor);
    // A failed image gives its credits back: the balance pays for those that succeeded.
    let succeeded = 0;
    for (const id of made) if ((await waitFinished(base, key, id)) === "succeeded") succeeded++;
    const balanceAfter = (await apiJson(base, key, "GET", "/credits")).body.balance;
    const after = await timed(`${base}${path}`, { headers: signedIn });

    const served = pages.filter((r) => r.status === 200);
    const refused = pages.filter((r) => r.status === 503);
    const others = pages.filter((r) => r.status !== 200 && r.status !== 503);
    const refusedFr = refused.find((r) => r.french);
    const refusedEn = refused.find((r) => !r.french);
    const answered = (list, ok) => ({
      sent: list.length,
      answered: list.filter((r) => ok(r.status)).length,
      shed: list.filter((r) => r.status === 503).length,
      latencyMs: latencies(list.map((r) => r.ms)),
    });
    const byStatus = {};
    for (const r of pages) byStatus[r.status] = (byStatus[r.status] ?? 0) + 1;
    const imageStatuses = {};
    for (const r of images) imageStatuses[r.status] = (imageStatuses[r.status] ?? 0) + 1;
    return {
      capacity: { path, requestsPerSecond: round(capacity), non2xx: capacityShed, p99Ms: measured.latency.p99 },
      offeredPerSecond: round(rate),
      sent: pages.length,
      served: served.length,
      servedPerSecond: round(served.length / SETTINGS.overload.seconds),
      servedLatencyMs: latencies(served.map((r) => r.ms)),
      // The same pages as the server timed them, from its request's start to its answer.
      servedByServer: {
        count: serverAfter.all - serverBefore.all,
        withinSecond: serverAfter.withinSecond - serverBefore.withinSecond,
      },
      refused: refused.length,
      refusedLatencyMs: latencies(refused.map((r) => r.ms)),
      refusedWithRetryAfter: refused.filter((r) => Number(r.retryAfter) > 0).length,
      busyPageTranslated: {
        en: refusedEn ? refusedEn.body.includes(escapeHtml(busyText("en"))) : null,
        fr: refusedFr
          ? refusedFr.body.includes(escapeHtml(busyText("fr"))) && refusedFr.body.includes('lang="fr"')
          : null,
      },
      otherStatuses: others.length,
      byStatus,
      probes: {
        healthz: answered(healthz, (s) => s === 200),
        readyz: answered(readyz, (s) => s === 200),
        statusPoll: answered(poll, (s) => s === 200),
        // Refused for its signature, or with no Stripe configured: answered, not shed.
        webhook: answered(webhook, (s) => s > 0 && s !== 503),
      },
      images: {
        sent: images.length,
        byStatus: imageStatuses,
        accepted: accepted.length,
        made: made.length,
        succeeded,
        charged: balanceBefore - balanceAfter,
        chargedEach: costEach,
        nothingLost: accepted.every((id) => made.includes(id)) && balanceBefore - balanceAfter === succeeded * costEach,
      },
      afterwards: { status: after.status, ms: round(after.ms) },
      residentMiBAfter: residentMiB(web.child.pid),
    };
  } finally {
    web.child.kill("SIGTERM");
    await Promise.race([web.exited, sleep(30_000)]);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const report = { settings: SETTINGS };
try {
  report.pglite = await overload(null);
} catch (error) {
  report.pglite = { error: String(error.message ?? error) };
}
let database = null;
try {
  database = await benchDatabase();
  report.postgres = database ? await overload(database.url) : { skipped: "no PostgreSQL server binaries" };
} catch (error) {
  report.postgres = { error: String(error.message ?? error) };
} finally {
  await database?.dispose().catch(() => undefined);
}
process.stdout.write(`${JSON.stringify(report)}\n`);
process.exit(0);
