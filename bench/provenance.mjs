// What marking an output with its provenance costs where outputs are stored: the XMP packet written into a
// 1024×1024 PNG, JPEG and WebP and into a 5-second MP4 (`server/media/xmp.ts`), each 50 times, beside what encoding
// the image again with sharp's `withXmp` would cost; and, as a figure of its own (the budget is for the metadata),
// signing the marked PNG and JPEG with C2PA (`server/media/c2pa.ts`) with a test certificate made with openssl, and
// what loading the C2PA library costs once. Prints one JSON object on stdout; `bench/run.mjs` reads it.
import { performance } from "node:perf_hooks";
import sharp from "sharp";
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { embedXmp, provenanceXmp } from "../server/media/xmp.ts";
import { c2paSignerOf, signC2pa } from "../server/media/c2pa.ts";
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
result.c2pa = await benchSigning();

process.stdout.write(`${JSON.stringify(result)}\n`);

/** A private CA and a claim-signing certificate it issued, as the provenance guide makes them; null without openssl. */
function testCertificate(dir) {
  const cnf = join(dir, "pki.cnf");
  writeFileSync(
    cnf,
    "[req]\ndistinguished_name = dn\nprompt = no\n[dn]\nCN = Bench Signer\nO = Atelier (TEST)\n" +
      "[v3_ca]\nbasicConstraints = critical, CA:TRUE\nkeyUsage = critical, keyCertSign, cRLSign\nsubjectKeyIdentifier = hash\n" +
      "[v3_signer]\nbasicConstraints = critical, CA:FALSE\nkeyUsage = critical, digitalSignature\n" +
      "extendedKeyUsage = emailProtection, 1.3.6.1.4.1.62558.2.1\nsubjectKeyIdentifier = hash\nauthorityKeyIdentifier = keyid:always\n",
  );
  const openssl = (...args) => execFileSync("openssl", args, { cwd: dir, stdio: "pipe" });
  try {
    openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "ca.key");
    openssl(
      ...["req", "-new", "-x509", "-sha256", "-key", "ca.key", "-days", "2", "-config", cnf],
      ...["-subj", "/CN=Bench Root CA/O=Atelier (TEST)", "-extensions", "v3_ca", "-out", "ca.pem"],
    );
    openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "signer.key");
    openssl("req", "-new", "-sha256", "-key", "signer.key", "-config", cnf, "-out", "signer.csr");
    openssl(
      ...["x509", "-req", "-sha256", "-in", "signer.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial"],
      ...["-days", "2", "-extfile", cnf, "-extensions", "v3_signer", "-out", "signer.pem"],
    );
  } catch {
    return null;
  }
  return { C2PA_CERT: join(dir, "signer.pem"), C2PA_KEY: join(dir, "signer.key") };
}

async function benchSigning() {
  const dir = mkdtempSync(join(tmpdir(), "bench-c2pa-"));
  try {
    const env = testCertificate(dir);
    if (!env) return { skipped: "openssl is not installed" };
    const signer = c2paSignerOf(env);
    const claim = { sourceType: "trainedAlgorithmicMedia", model: "Demo image", site: "Atelier" };
    const heapBefore = process.memoryUsage().heapUsed;
    const started = performance.now();
    await signC2pa(embedXmp(images.png, "png", xmp), "png", claim, signer);
    const firstMs = round(performance.now() - started, 1);
    const out = {
      firstSignatureMs: firstMs,
      heapAfterLoadingMiB: round((process.memoryUsage().heapUsed - heapBefore) / 2 ** 20, 1),
    };
    for (const format of ["png", "jpeg"]) {
      const marked = embedXmp(images[format], format, xmp);
      out[format] = {
        bytes: marked.length,
        ...(await timedAsync(() => signC2pa(marked, format, claim, signer), RUNS)),
      };
    }
    // The whole file is hashed: a PNG that hardly compresses (random pixels, about 3 MB) is the slow case.
    const dense = embedXmp(
      await sharp(randomBytes(1024 * 1024 * 3), { raw: { width: 1024, height: 1024, channels: 3 } })
        .png()
        .toBuffer(),
      "png",
      xmp,
    );
    out.pngRandomPixels = {
      bytes: dense.length,
      ...(await timedAsync(() => signC2pa(dense, "png", claim, signer), RUNS)),
    };
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
