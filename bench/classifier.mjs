// What the offline image classifier (`server/media/classify-image.ts`) costs the process that calls it: the model's
// load in its worker thread, the time per 1024×1024 image, the memory it adds, and how much the calling thread's
// event loop (where requests would be answered) is held up meanwhile. Prints one JSON object on stdout;
// `bench/run.mjs` reads it.
import { readFileSync } from "node:fs";
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import sharp from "sharp";
import { classifierStatus, classifyImage, stopClassifier } from "../server/media/classify-image.ts";

const RUNS = 30;
const AT_ONCE = 8;
const MiB = 2 ** 20;
const round = (n, d = 1) => Math.round(n * 10 ** d) / 10 ** d;
const mib = (bytes) => round(bytes / MiB);

function percentiles(ms) {
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (p) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
  return { p50Ms: round(at(0.5)), p95Ms: round(at(0.95)), maxMs: round(sorted.at(-1)) };
}

/** VmRSS and VmHWM (the peak) of this process, from /proc: what the operating system counts. */
function residentMiB() {
  try {
    const status = readFileSync("/proc/self/status", "utf8");
    const kib = (name) => Number(new RegExp(`^${name}:\\s+(\\d+)`, "m").exec(status)?.[1]);
    return { rss: round(kib("VmRSS") / 1024), peak: round(kib("VmHWM") / 1024) };
  } catch {
    return { rss: mib(process.memoryUsage().rss), peak: null };
  }
}

function memory() {
  const m = process.memoryUsage();
  return {
    ...residentMiB(),
    heapUsed: mib(m.heapUsed),
    external: mib(m.external),
    arrayBuffers: mib(m.arrayBuffers),
  };
}

// Pictures with as much detail as a generated one: noise, so that no decoder finds them easy.
const noise = Buffer.alloc(1024 * 1024 * 3);
for (let i = 0; i < noise.length; i++) noise[i] = (Math.imul(i, 2654435761) >>> 24) & 255;
const raw = sharp(noise, { raw: { width: 1024, height: 1024, channels: 3 } });
const images = [await raw.clone().png().toBuffer(), await raw.clone().jpeg({ quality: 90 }).toBuffer()];
// sharp's own buffers and thread pool, warmed here, are not the classifier's.
await sharp(images[0]).resize(224, 224).raw().toBuffer();
await sharp(images[1]).resize(224, 224).raw().toBuffer();

const before = memory();
const loop = monitorEventLoopDelay({ resolution: 1 });
loop.enable();

let started = performance.now();
await classifyImage(images[0]);
const firstImageMs = performance.now() - started;
const status = await classifierStatus();
const afterLoad = memory();

const wall = [];
const own = [];
for (let i = 0; i < RUNS; i++) {
  started = performance.now();
  const { ms } = await classifyImage(images[i % images.length]);
  wall.push(performance.now() - started);
  own.push(ms);
}

started = performance.now();
await Promise.all(Array.from({ length: AT_ONCE }, (_, i) => classifyImage(images[i % images.length])));
const atOnceMs = performance.now() - started;
loop.disable();

const afterRuns = memory();
const heap = await classifierStatus();
await stopClassifier();
// Give the thread's memory a moment to be handed back before reading what stopping it returned.
await new Promise((resolve) => setTimeout(resolve, 500));
const afterStop = memory();

const eventLoop = {
  p50Ms: round(loop.percentile(50) / 1e6),
  p99Ms: round(loop.percentile(99) / 1e6),
  maxMs: round(loop.max / 1e6),
};
const result = {
  backend: status?.backend ?? null,
  loadMs: status?.loadMs === undefined ? null : round(status.loadMs),
  firstImageMs: round(firstImageMs),
  perImage: { ...percentiles(wall), runs: RUNS, input: "1024×1024 PNG and JPEG (noise)" },
  perImageOwn: percentiles(own),
  atOnce: { images: AT_ONCE, totalMs: round(atOnceMs), perImageMs: round(atOnceMs / AT_ONCE) },
  memoryMiB: {
    before,
    afterLoad,
    afterRuns,
    afterStop,
    addedByLoad: round(afterLoad.rss - before.rss),
    addedAfterRuns: round(afterRuns.rss - before.rss),
    keptAfterStop: round(afterStop.rss - before.rss),
    workerHeap: heap
      ? { used: mib(heap.heapUsedBytes), total: mib(heap.heapTotalBytes), external: mib(heap.externalBytes) }
      : null,
  },
  callingThreadEventLoopDelay: eventLoop,
  // The budget: the classifier never runs where requests are answered. Read here as the calling thread's event loop
  // staying responsive (p99 delay ≤ 20 ms) while 38 images are classified.
  withinBudget: eventLoop.p99Ms <= 20,
};
process.stdout.write(`${JSON.stringify(result)}\n`);
