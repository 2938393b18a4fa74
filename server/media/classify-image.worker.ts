// The classifier's thread (started by `classify-image.ts`, never imported): nsfwjs's MobileNetV2 on TensorFlow.js,
// computed by its WebAssembly backend (the .wasm files ship in its npm package), or by its pure-JavaScript CPU backend
// if WebAssembly cannot start. Node runs this file as it is (type stripping), from the source tree, both in
// development and beside the production bundle: a Worker needs a file of its own, which the one-file server bundle
// does not have. It imports packages only, so nothing of the server's own graph is loaded twice.
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { performance } from "node:perf_hooks";
import { parentPort } from "node:worker_threads";
import * as tf from "@tensorflow/tfjs";
import { setWasmPaths } from "@tensorflow/tfjs-backend-wasm";
import { load, type NSFWJS } from "nsfwjs/core";
import { MobileNetV2Model } from "nsfwjs/models/mobilenet_v2";
import type { ClassifierReply, ClassifierRequest, ClassifierScores } from "./classify-image.ts";

const CATEGORIES: Record<string, keyof ClassifierScores> = {
  Drawing: "drawing",
  Hentai: "hentai",
  Neutral: "neutral",
  Porn: "porn",
  Sexy: "sexy",
};

let backend: Promise<string> | undefined;
let model: Promise<NSFWJS> | undefined;

/**
 * Production mode drops tfjs's debug checks. The WebAssembly backend was measured 15 to 20 times faster than the
 * JavaScript one, with the same scores; one thread, so that a check never takes more than one core from the server
 * beside it. WebGL cannot exist here, so it is not tried. Chosen once per worker: the WebAssembly module cannot be
 * set up twice.
 */
async function chooseBackend(): Promise<string> {
  tf.enableProdMode();
  tf.env().set("WASM_HAS_MULTITHREAD_SUPPORT", false);
  const wasm = createRequire(import.meta.url).resolve("@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm");
  setWasmPaths(`${dirname(wasm)}/`);
  if (!(await tf.setBackend("wasm").catch(() => false))) await tf.setBackend("cpu");
  return tf.getBackend();
}

/** The model, loaded on the first image; a load that failed is tried again on the next one. */
function ready(): Promise<NSFWJS> {
  if (!model) {
    const started = performance.now();
    const loading = quietly(async () => {
      const name = await (backend ??= chooseBackend());
      // The model and its weights are JavaScript modules inside the nsfwjs package: nothing is fetched.
      return { name, nsfw: await load("MobileNetV2", { modelDefinitions: [MobileNetV2Model] }) };
    });
    model = loading.then(({ nsfw }) => nsfw);
    const current = model;
    loading.then(
      ({ name }) =>
        parentPort?.postMessage({
          kind: "loaded",
          loadMs: performance.now() - started,
          backend: name,
        } satisfies ClassifierReply),
      () => {
        if (model === current) model = undefined;
      },
    );
  }
  return model;
}

/**
 * tfjs and nsfwjs greet on the console while they load (a hint to install tfjs-node, which is deliberately not used,
 * and the model's name): nothing an operator should read in the server's log.
 */
async function quietly<T>(work: () => Promise<T>): Promise<T> {
  const { info, warn, log } = console;
  console.info = console.warn = console.log = () => {};
  try {
    return await work();
  } finally {
    Object.assign(console, { info, warn, log });
  }
}

async function classify(request: ClassifierRequest): Promise<ClassifierReply> {
  const nsfw = await ready();
  const started = performance.now();
  const image = tf.tensor3d(request.pixels, [request.height, request.width, 3], "int32");
  try {
    // All five classes, so that the scores add up to 1 and a caller may weigh any of them.
    const predictions = await nsfw.classify(image, 5);
    const scores: ClassifierScores = { drawing: 0, hentai: 0, neutral: 0, porn: 0, sexy: 0 };
    for (const { className, probability } of predictions) {
      const key = CATEGORIES[className];
      if (key) scores[key] = probability;
    }
    return { kind: "result", id: request.id, scores, ms: performance.now() - started };
  } finally {
    image.dispose();
  }
}

// One image at a time: both backends compute synchronously under their promises, so running several together would
// only hold more tensors at once, never finish sooner.
let queue: Promise<unknown> = Promise.resolve();

parentPort?.on("message", (request: ClassifierRequest) => {
  queue = queue.then(async () => {
    try {
      parentPort?.postMessage(await classify(request));
    } catch (error) {
      parentPort?.postMessage({
        kind: "error",
        id: request.id,
        message: error instanceof Error ? error.message : String(error),
      } satisfies ClassifierReply);
    }
  });
});
