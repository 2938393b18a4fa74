// What marking an output with its provenance costs where outputs are stored: the XMP packet written into a
// 1024×1024 PNG, JPEG and WebP and into a 5-second MP4 (`server/media/xmp.ts`), each 50 times, beside what encoding
// the image again with sharp's `withXmp` would cost. Prints one JSON object on stdout; `bench/run.mjs` reads it.
import { performance } from "node:perf_hooks";
import sharp from "sharp";
import { embedXmp, provenanceXmp } from "../server/media/xmp.ts";
import { renderDemoVideo } from "../server/providers/demo/video-model.ts";

const RUNS = 50;
const round = (n, d = 2) => Math.round(n * 10 ** d) / 10 ** d;
const xmp = provenanceXmp({
  sourceType: "trainedAlgorithmicMedia",
  site: "Atelier",
  generationId: "0b7c6f0e-6d43-4d35-9a55-2f0f3f8f4e21",
  model: "Demo image",
  createdAt: new Date(),
});

function timed(work, runs = RUNS) {
  const ms = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    work();
    ms.push(performance.now() - started);
  }
  ms.sort((a, b) => a - b);
  return { p50Ms: round(ms[Math.floor(ms.length / 2)], 3), maxMs: round(ms.at(-1), 3) };
}

async function timedAsync(work, runs) {
  const ms = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await work();
    ms.push(performance.now() - started);
  }
  ms.sort((a, b) => a - b);
  return { p50Ms: round(ms[Math.floor(ms.length / 2)], 1), maxMs: round(ms.at(-1), 1) };
}

// A picture with as much detail as a generated one: noise, so that no encoder finds it easy.
const noise = Buffer.alloc(1024 * 1024 * 3);
for (let i = 0; i < noise.length; i++) noise[i] = (Math.imul(i, 2654435761) >>> 24) & 255;
const raw = sharp(noise, { raw: { width: 1024, height: 1024, channels: 3 } });
const images = {
  png: await raw.clone().png().toBuffer(),
  jpeg: await raw.clone().jpeg({ quality: 90 }).toBuffer(),
  webp: await raw.clone().webp({ quality: 90 }).toBuffer(),
};
const video = (
  await renderDemoVideo({ prompt: "a lighthouse", seed: 1, style: "realistic", duration: 5, aspectRatio: "16:9" })
).mp4;

const result = { images: {}, video: {} };
for (const [format, bytes] of Object.entries(images)) {
  result.images[format] = {
    bytes: bytes.length,
    embed: timed(() => embedXmp(bytes, format, xmp)),
    reencodeWithSharp: await timedAsync(() => sharp(bytes).withXmp(xmp).toFormat(format).toBuffer(), 5),
  };
}
result.video.mp4 = { bytes: video.length, embed: timed(() => embedXmp(video, "mp4", xmp)) };
result.withinBudget = Object.values(result.images).every((r) => r.embed.p50Ms <= 10);
process.stdout.write(`${JSON.stringify(result)}\n`);
