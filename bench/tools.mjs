// The studio's tools: what a 10 MB input and a mask cost on the studio's own API (upload, then submit), and the
// first-load JavaScript of every tool's page, signed in. Atelier's production server on PGlite (and on PostgreSQL
// when one can be had, for the API part), with the in-process worker off so that the submitted jobs wait in the
// queue and nothing else runs beside the requests measured. Needs the build (bench/run.mjs makes it). Prints one
// JSON object on stdout.
import { randomUUID } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import sharp from "sharp";
import { TOOLS, toolPath } from "../common/tools.ts";
import { samePage, signUp } from "./account.mjs";
import { firstLoadJavaScript } from "./browser.mjs";
import { benchDatabase, sparePort } from "./postgres.mjs";
import { startWeb, waitReady } from "./web.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const HOST = "127.0.0.1";
const SETTINGS = {
  warmups: 2,
  runs: 10,
  // The studio's upload limit (server/modules/generation/input-image.ts): the input is made just under it.
  uploadLimitBytes: 10 * 1024 * 1024,
  inputShareOfLimit: 0.97,
  model: "demo-image",
};
/** A tool's page stays within the dashboard's budget when its first-load JavaScript is at most this much more. */
const PAGE_ALLOWANCE_KIB = 10;
/** The mask's leg (its upload and the submit carrying it) against the input's leg of image-to-image, with noise. */
const PATH_ALLOWANCE = 1.25;
const READY_MS = 120_000;

const cleanup = [];
process.on("exit", () => {
  for (const step of cleanup.reverse()) step();
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => process.exit(130));

const round = (n, d = 1) => Math.round(n * 10 ** d) / 10 ** d;

function stats(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = sorted.length / 2;
  const p50 = sorted.length % 2 ? sorted[Math.floor(mid)] : (sorted[mid - 1] + sorted[mid]) / 2;
  return { runs: sorted.length, p50Ms: round(p50), maxMs: round(sorted.at(-1)), minMs: round(sorted[0]) };
}

/** A deterministic pseudo-random source (xorshift32), so that every run uploads the same bytes. */
function random(seed) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 4294967296;
  };
}

/** A photo-like RGB picture: smooth colour fields with grain (a noisy photo compresses about as badly). */
function noisyPhoto(width, height) {
  const next = random(42);
  const data = Buffer.alloc(width * height * 3);
  let i = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const u = x / width;
      const v = y / height;
      const base = [
        120 + 90 * Math.sin(u * 6.3 + v * 2),
        110 + 80 * Math.cos(v * 5.1 - u),
        100 + 70 * Math.sin((u + v) * 4),
      ];
      for (let c = 0; c < 3; c++) data[i++] = Math.max(0, Math.min(255, base[c] + (next() - 0.5) * 48));
    }
  }
  return sharp(data, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
}

/**
 * The input: a 3:2 noisy photo PNG sized to just under the upload limit. The mask: the same width and height (the
 * inpaint tool wants the input's shape), white strokes (what changes) on black (what stays), as a painted mask is.
 */
async function makeImages() {
  const target = SETTINGS.uploadLimitBytes * SETTINGS.inputShareOfLimit;
  let width = 2304;
  let input = null;
  for (let attempt = 0; attempt < 4; attempt++) {
    const height = Math.round((width * 2) / 3);
    input = { width, height, png: await noisyPhoto(width, height) };
    const off = input.png.length / target;
    if (input.png.length < SETTINGS.uploadLimitBytes && Math.abs(off - 1) < 0.02) break;
    width = Math.round(width / Math.sqrt(off));
  }
  if (input.png.length >= SETTINGS.uploadLimitBytes) throw new Error("the input image came out over the limit");
  const { width: w, height: h } = input;
  const strokes = [
    `<ellipse cx="${w * 0.45}" cy="${h * 0.5}" rx="${w * 0.18}" ry="${h * 0.26}" fill="#fff"/>`,
    `<path d="M ${w * 0.1} ${h * 0.8} C ${w * 0.3} ${h * 0.6}, ${w * 0.6} ${h * 0.95}, ${w * 0.9} ${h * 0.7}" stroke="#fff" stroke-width="${w * 0.04}" stroke-linecap="round" fill="none"/>`,
    `<circle cx="${w * 0.8}" cy="${h * 0.2}" r="${h * 0.08}" fill="#fff"/>`,
  ].join("");
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><rect width="100%" height="100%" fill="#000"/>${strokes}</svg>`;
  const mask = await sharp(Buffer.from(svg)).flatten({ background: "#000" }).removeAlpha().png().toBuffer();
  return { input, mask: { width: w, height: h, png: mask } };
}

/** The multipart form the studio's upload sends (a `file` field), made once so that only the request is timed. */
function multipart(png, name, purpose) {
  const boundary = `----atelier-bench-${randomUUID()}`;
  // A mask says so, as the studio's upload does, and is kept as a lossless PNG.
  const field = purpose ? `--${boundary}\r\nContent-Disposition: form-data; name="purpose"\r\n\r\n${purpose}\r\n` : "";
  const head = Buffer.from(
    `${field}--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: image/png\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return { body: Buffer.concat([head, png, tail]), type: `multipart/form-data; boundary=${boundary}` };
}

async function stopWeb(web) {
  web.child.kill("SIGTERM");
  if ((await Promise.race([web.exited, sleep(30_000, "timeout")])) === "timeout") {
    web.child.kill("SIGKILL");
    await web.exited;
  }
}

/** Runs `once` warm-up times untimed and `runs` times timed; a failure ends the series with its reason. */
async function series(once) {
  for (let i = 0; i < SETTINGS.warmups; i++) await once();
  const samples = [];
  for (let i = 0; i < SETTINGS.runs; i++) {
    const started = performance.now();
    await once();
    samples.push(performance.now() - started);
  }
  return stats(samples);
}

/** Two series measured turn about (a, b, b, a, …), so that a change in the machine's load falls on both alike. */
async function pairedSeries(a, b) {
  const samples = { a: [], b: [] };
  const timed = async (name, once) => {
    const started = performance.now();
    await once();
    samples[name].push(performance.now() - started);
  };
  for (let i = 0; i < SETTINGS.warmups; i++) {
    await a();
    await b();
  }
  for (let i = 0; i < SETTINGS.runs; i++) {
    if (i % 2 === 0) {
      await timed("a", a);
      await timed("b", b);
    } else {
      await timed("b", b);
      await timed("a", a);
    }
  }
  return [stats(samples.a), stats(samples.b)];
}

async function studioApi(base, cookie) {
  const headers = { ...samePage(base), Cookie: cookie };
  const upload = async (form) => {
    const response = await fetch(`${base}/api/uploads`, {
      method: "POST",
      headers: { ...headers, "Content-Type": form.type },
      body: form.body,
    });
    const body = await response.json().catch(() => null);
    if (response.status !== 201) throw new Error(`upload answered ${response.status} ${JSON.stringify(body)}`);
    return body.upload;
  };
  const submit = async (fields) => {
    const response = await fetch(`${base}/api/generations`, {
      method: "POST",
      headers: { ...headers, "Content-Type": "application/json", "Idempotency-Key": randomUUID() },
      body: JSON.stringify({ model: SETTINGS.model, prompt: "A lighthouse on a cliff at dusk", ...fields }),
    });
    const body = await response.json().catch(() => null);
    if (response.status !== 201) throw new Error(`submit answered ${response.status} ${JSON.stringify(body)}`);
    return body.generation;
  };
  return { upload, submit };
}

const failure = (error) => ({ error: String(error.message ?? error).slice(0, 500) });

/** Uploads of the input and of the mask, then submits of image-to-image and of inpaint with them. */
async function measureApi(base, cookie, images) {
  const api = await studioApi(base, cookie);
  const inputForm = multipart(images.input.png, "photo.png");
  const maskForm = multipart(images.mask.png, "mask.png", "mask");
  const result = {};
  let inputAsset = null;
  let maskAsset = null;
  try {
    const [input, mask] = await pairedSeries(
      async () => (inputAsset = await api.upload(inputForm)),
      async () => (maskAsset = await api.upload(maskForm)),
    );
    result.uploadInput = input;
    result.uploadMask = mask;
  } catch (error) {
    // The mask alone may be refused; the input's figure is still worth having
    result.uploadMask = failure(error);
    if (!inputAsset) {
      result.uploadInput = failure(error);
      return result;
    }
    result.uploadInput = await series(async () => (inputAsset = await api.upload(inputForm))).catch(failure);
  }
  result.stored = {
    input: inputAsset && { mimeType: inputAsset.mimeType, bytes: inputAsset.sizeBytes },
    mask: maskAsset && { mimeType: maskAsset.mimeType, bytes: maskAsset.sizeBytes },
  };
  const imageToImage = () => api.submit({ tool: "image-to-image", inputAssetId: inputAsset.id });
  const inpaint = () => api.submit({ tool: "inpaint", inputAssetId: inputAsset.id, maskAssetId: maskAsset.id });
  if (maskAsset) {
    try {
      [result.submitImageToImage, result.submitInpaint] = await pairedSeries(imageToImage, inpaint);
      return result;
    } catch (error) {
      result.submitInpaint = failure(error);
    }
  } else result.submitInpaint = { error: "no mask uploaded" };
  result.submitImageToImage = await series(imageToImage).catch(failure);
  return result;
}

/**
 * The budget's reading: the inpaint path (input upload, mask upload, submit with both) adds to today's image-to-image
 * path (input upload, submit) at most one more of it, that is, the mask's leg (its upload and validation, plus the
 * submit that carries it) costs no more than the input's leg, with 25% allowed for a shared machine's noise.
 */
function judgeApi(r) {
  const p50 = (x) => (typeof x?.p50Ms === "number" ? x.p50Ms : null);
  const [uploadInput, uploadMask, submitI2i, submitInpaint] = [
    p50(r.uploadInput),
    p50(r.uploadMask),
    p50(r.submitImageToImage),
    p50(r.submitInpaint),
  ];
  const imageToImageMs = uploadInput !== null && submitI2i !== null ? round(uploadInput + submitI2i) : null;
  if (imageToImageMs === null || uploadMask === null || submitInpaint === null) {
    return { imageToImagePathMs: imageToImageMs, inpaintPathMs: null, maskLegMs: null, withinBudget: null };
  }
  const maskLegMs = round(uploadMask + submitInpaint);
  return {
    imageToImagePathMs: imageToImageMs,
    inpaintPathMs: round(uploadInput + maskLegMs),
    maskLegMs,
    maskLegRatio: round(maskLegMs / imageToImageMs, 3),
    withinBudget: maskLegMs <= PATH_ALLOWANCE * imageToImageMs,
  };
}

/** The mask editor's own chunk(s) in the client build, gzipped at level 9 (null when the build has none). */
function maskEditorChunk() {
  const dir = join(root, "build", "client", "assets");
  // The editor itself: its small lazy wrapper comes with the studio's form by design.
  const files = readdirSync(dir).filter(
    (f) => f.startsWith("mask-editor-") && !f.startsWith("mask-editor-lazy-") && f.endsWith(".js"),
  );
  if (files.length === 0) return null;
  const bytes = files.map((f) => readFileSync(join(dir, f)));
  const sum = (list) => list.reduce((n, b) => n + b, 0);
  return {
    files,
    kib: round(sum(bytes.map((b) => b.length)) / 1024),
    gzipKiB: round(sum(bytes.map((b) => gzipSync(b, { level: 9 }).length)) / 1024),
  };
}

async function measurePages(base, cookie) {
  const home = "/dashboard/home";
  // The studio page as it was before the tools grew (text to image): each tool page may add its form part to it.
  const studio = toolPath("text-to-image");
  const paths = [home, ...TOOLS.map((t) => toolPath(t.id))];
  const loaded = await firstLoadJavaScript(base, paths, { cookie });
  const reference = loaded[studio]?.gzipKiB;
  const editor = maskEditorChunk();
  const pages = {};
  for (const path of paths) {
    const r = loaded[path];
    const tool = TOOLS.find((t) => toolPath(t.id) === path)?.id ?? null;
    pages[path] = {
      tool,
      ...r,
      withinBudget:
        path === home || path === studio || r.status !== 200 ? null : r.gzipKiB <= reference + PAGE_ALLOWANCE_KIB,
      // The editor is meant to load when it is opened, not with the page
      ...(editor ? { maskEditorOnFirstLoad: r.scripts.some((url) => editor.files.some((f) => url.endsWith(f))) } : {}),
    };
  }
  const judged = Object.values(pages).filter((p) => p.withinBudget !== null);
  return {
    referenceKiB: reference ?? null,
    homeKiB: loaded[home]?.gzipKiB ?? null,
    allowanceKiB: PAGE_ALLOWANCE_KIB,
    pages,
    maskEditor: editor,
    withinBudget: judged.length ? judged.every((p) => p.withinBudget) : null,
  };
}

async function onDatabase(databaseUrl, images, { pages }) {
  const dataDir = mkdtempSync(join(os.tmpdir(), "atelier-bench-tools-"));
  cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const port = await sparePort();
  const base = `http://${HOST}:${port}`;
  const env = {
    ...process.env,
    PORT: String(port),
    HOST,
    SITE_URL: base,
    DATA_DIR: dataDir,
    NODE_ENV: "production",
    LOG_LEVEL: "warn",
    // Enough for every submit of the run (the offline model costs 1 credit an image)
    SIGNUP_BONUS_CREDITS: "100000",
    PAGE_RATE_LIMIT_PER_MINUTE: "1000000",
    SHUTDOWN_DELAY_SECONDS: "0",
  };
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  else delete env.DATABASE_URL;
  // The confirmation e-mail is sent by the worker: the account is made with it, then Atelier starts again without
  // it, so that the submitted jobs stay queued and the figures are the requests alone, with nothing running beside
  let web = startWeb(env);
  try {
    await waitReady(base, web, READY_MS);
    const cookie = await signUp(base, dataDir);
    await stopWeb(web);
    web = startWeb({ ...env, WORKER: "off" });
    await waitReady(base, web, READY_MS);
    const api = await measureApi(base, cookie, images);
    const result = { ...api, ...judgeApi(api) };
    if (pages) result.firstLoadJavaScript = await measurePages(base, cookie).catch(failure);
    return result;
  } finally {
    await stopWeb(web);
  }
}

const started = performance.now();
const images = await makeImages();
const result = {
  settings: { ...SETTINGS, pageAllowanceKiB: PAGE_ALLOWANCE_KIB, pathAllowance: PATH_ALLOWANCE },
  images: {
    input: { width: images.input.width, height: images.input.height, bytes: images.input.png.length },
    mask: { width: images.mask.width, height: images.mask.height, bytes: images.mask.png.length },
  },
};
try {
  result.pglite = await onDatabase(undefined, images, { pages: true });
} catch (error) {
  result.pglite = failure(error);
}
let database = null;
try {
  database = await benchDatabase();
  result.postgres = database
    ? await onDatabase(database.url, images, { pages: false })
    : { skipped: "no PostgreSQL server binaries and no BENCH_DATABASE_URL" };
} catch (error) {
  result.postgres = failure(error);
} finally {
  await database?.dispose();
}
result.seconds = round((performance.now() - started) / 1000);
process.stdout.write(`${JSON.stringify(result)}\n`);
process.exit(0);
