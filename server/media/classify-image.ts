// An offline check of an output image before it is published: nsfwjs (MobileNetV2, its weights inside the npm
// package) on TensorFlow.js (WebAssembly, or pure JavaScript). It runs in a worker thread of its own, started on the
// first image and stopped when idle, never on the thread that answers requests: an inference keeps a core busy for
// about 60 ms (about a second on the JavaScript backend), and loading the model for a few hundred. Callers are jobs.
// docs/decisions/044-offline-image-classifier.md has the figures (`npm run bench -- classifier`).
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { Worker } from "node:worker_threads";
import sharp from "sharp";
import { ROOT } from "#server/paths.ts";

export const CLASSIFIER_CATEGORIES = ["drawing", "hentai", "neutral", "porn", "sexy"] as const;
export type ClassifierCategory = (typeof CLASSIFIER_CATEGORIES)[number];
/** The model's five probabilities; they add up to 1. */
export type ClassifierScores = Record<ClassifierCategory, number>;
export type Classification = {
  scores: ClassifierScores;
  /** This image's own cost: decoding and scaling it, and the inference (not the wait behind other images, nor the model's load). */
  ms: number;
};

/** Messages to and from the worker (`classify-image.worker.ts`). */
export type ClassifierRequest = { id: number; pixels: Uint8Array; width: number; height: number };
export type ClassifierReply =
  | { kind: "result"; id: number; scores: ClassifierScores; ms: number }
  | { kind: "error"; id: number; message: string }
  | { kind: "loaded"; loadMs: number; backend: string };

/** MobileNetV2's input: the picture is scaled (stretched, as nsfwjs itself would) to this square. */
const INPUT_SIZE = 224;
/**
 * The loaded model adds about 150 MiB to the process's resident memory (stopping the worker gives back about 85 of
 * them), and loading it again costs under half a second: a worker with nothing to do for this long is stopped, so
 * that a site that generates now and then does not carry it all day, while a busy one keeps it.
 */
const IDLE_MS = 5 * 60_000;
/**
 * Its JavaScript heap stays under 45 MiB (the weights and tensors live in WebAssembly memory, outside it); the cap
 * turns a runaway into a failed check (the worker is stopped, its images are refused) instead of a process out of
 * memory.
 */
const RESOURCE_LIMITS = { maxOldGenerationSizeMb: 128, maxYoungGenerationSizeMb: 16 };
// From the source tree in every mode: the server bundle is one file, and Node runs the TypeScript as it is.
const WORKER_FILE = join(ROOT, "server/media/classify-image.worker.ts");

type Pending = { resolve: (value: Classification) => void; reject: (error: Error) => void; decodeMs: number };
type Classifier = {
  worker: Worker;
  pending: Map<number, Pending>;
  idle: NodeJS.Timeout | undefined;
  loadMs: number | undefined;
  backend: string | undefined;
};

let current: Classifier | undefined;
let nextId = 1;

function startClassifier(): Classifier {
  const worker = new Worker(WORKER_FILE, { name: "image-classifier", resourceLimits: RESOURCE_LIMITS });
  const classifier: Classifier = {
    worker,
    pending: new Map(),
    idle: undefined,
    loadMs: undefined,
    backend: undefined,
  };
  worker.on("message", (reply: ClassifierReply) => {
    if (reply.kind === "loaded") {
      classifier.loadMs = reply.loadMs;
      classifier.backend = reply.backend;
      return;
    }
    const call = classifier.pending.get(reply.id);
    if (!call) return;
    classifier.pending.delete(reply.id);
    if (reply.kind === "result") call.resolve({ scores: reply.scores, ms: call.decodeMs + reply.ms });
    else call.reject(new Error(`The image classifier failed: ${reply.message}`));
    settle(classifier);
  });
  // An uncaught error ends the worker ('exit' follows); both reject what was waiting, and the next image starts a
  // new worker, since this one is no longer `current`.
  worker.on("error", (error) => fail(classifier, new Error(`The image classifier crashed: ${error.message}`)));
  worker.on("exit", (code) => fail(classifier, new Error(`The image classifier stopped (exit code ${code}).`)));
  return classifier;
}

function fail(classifier: Classifier, error: Error) {
  if (current === classifier) current = undefined;
  clearTimeout(classifier.idle);
  for (const call of classifier.pending.values()) call.reject(error);
  classifier.pending.clear();
}

/**
 * Between images the worker must not keep the process alive (a command or a test would never exit), yet while an
 * image is waiting it must (a script awaiting the answer would end before it). After the last one, the idle timer.
 */
function settle(classifier: Classifier) {
  clearTimeout(classifier.idle);
  if (classifier.pending.size > 0) {
    classifier.worker.ref();
    return;
  }
  classifier.worker.unref();
  classifier.idle = setTimeout(() => {
    // No longer `current` from here: an image asked for while it shuts down starts a new worker.
    if (current === classifier) current = undefined;
    void classifier.worker.terminate();
  }, IDLE_MS);
  classifier.idle.unref();
}

/** The picture as the model reads it: upright, alpha over white, sRGB, stretched to the input square. */
async function decode(bytes: Uint8Array): Promise<Uint8Array> {
  try {
    const { data, info } = await sharp(bytes)
      .rotate()
      .flatten({ background: "#ffffff" })
      .toColourspace("srgb")
      .resize(INPUT_SIZE, INPUT_SIZE, { fit: "fill" })
      .raw()
      .toBuffer({ resolveWithObject: true });
    if (info.channels !== 3 || data.byteLength !== INPUT_SIZE * INPUT_SIZE * 3) {
      throw new Error(`decoded to ${info.width}×${info.height}×${info.channels}`);
    }
    // A copy of its own, so that its memory can be handed to the worker rather than copied again.
    return new Uint8Array(data);
  } catch (error) {
    throw new Error(
      `The image classifier could not read the image: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}

/**
 * Scores an image (PNG, JPEG, WebP, GIF, AVIF… whatever sharp decodes). Decoding and scaling run on libuv's thread
 * pool (sharp), the inference in the worker; the model is loaded there on the first call. Images are classified one
 * after the other in the order asked. Rejects when the bytes are
 * not an image, or when the worker fails or is stopped while the image waits.
 */
export async function classifyImage(bytes: Uint8Array): Promise<Classification> {
  const started = performance.now();
  const pixels = await decode(bytes);
  const decodeMs = performance.now() - started;
  current ??= startClassifier();
  const classifier = current;
  const id = nextId++;
  return new Promise<Classification>((resolve, reject) => {
    classifier.pending.set(id, { resolve, reject, decodeMs });
    settle(classifier);
    const request: ClassifierRequest = { id, pixels, width: INPUT_SIZE, height: INPUT_SIZE };
    classifier.worker.postMessage(request, [pixels.buffer as ArrayBuffer]);
  });
}

/** Stops the worker now (shutdown, tests, the benchmark); images waiting are rejected. The next image starts another. */
export async function stopClassifier(): Promise<void> {
  const classifier = current;
  if (!classifier) return;
  fail(classifier, new Error("The image classifier was stopped."));
  await classifier.worker.terminate();
}

/** The running worker's model load time and JavaScript heap, or null when none runs (for the benchmark). */
export async function classifierStatus(): Promise<{
  loadMs: number | undefined;
  backend: string | undefined;
  heapUsedBytes: number;
  heapTotalBytes: number;
  externalBytes: number;
} | null> {
  const classifier = current;
  if (!classifier) return null;
  // The answer comes from the worker's thread: an idle (unreferenced) worker would let the process end first.
  classifier.worker.ref();
  const heap = await classifier.worker.getHeapStatistics().finally(() => {
    if (classifier.pending.size === 0) classifier.worker.unref();
  });
  return {
    loadMs: classifier.loadMs,
    backend: classifier.backend,
    heapUsedBytes: heap.used_heap_size,
    heapTotalBytes: heap.total_heap_size,
    externalBytes: heap.external_memory,
  };
}

export type ClassificationLevel = "strict" | "standard";
export type ClassificationVerdict = { flagged: boolean; categories: ClassifierCategory[] };

/**
 * Which categories count against an image, and from what sum of their scores it is held back. Sums rather than
 * single scores: the model often splits one explicit picture between `porn` and `hentai` (a realistic render sits
 * between a photograph and a drawing, and generated images often are such renders), and neither alone would pass a
 * threshold that their sum clearly does.
 *
 * - standard: explicit content only (porn + hentai ≥ 0.7). The bar favours few false alarms: a flag holds a user's
 *   output back, and a swimsuit or a classical nude should not be.
 * - strict: suggestive content as well (porn + hentai + sexy ≥ 0.5), for sites that want nothing of the kind; it
 *   accepts more false alarms (beachwear, close-up skin) in exchange.
 */
const LEVELS: Record<ClassificationLevel, { counted: ClassifierCategory[]; threshold: number }> = {
  standard: { counted: ["porn", "hentai"], threshold: 0.7 },
  strict: { counted: ["porn", "hentai", "sexy"], threshold: 0.5 },
};
/** A counted category is named in a flag's reasons when it carried at least this much of the score. */
const REASON_MIN_SCORE = 0.15;

export function classificationVerdict(scores: ClassifierScores, level: ClassificationLevel): ClassificationVerdict {
  const { counted, threshold } = LEVELS[level];
  const total = counted.reduce((sum, category) => sum + scores[category], 0);
  if (total < threshold) return { flagged: false, categories: [] };
  // The sum passed, so the highest counted score is at least threshold / counted.length (0.35 or about 0.17), above
  // REASON_MIN_SCORE: a flag always names at least one category.
  const categories = counted
    .filter((category) => scores[category] >= REASON_MIN_SCORE)
    .sort((a, b) => scores[b] - scores[a]);
  return { flagged: true, categories };
}
