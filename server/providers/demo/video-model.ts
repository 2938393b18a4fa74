import { randomUUID } from "node:crypto";
import sharp from "sharp";
import {
  InvalidArgumentError,
  type Experimental_VideoModelV4 as VideoModelV4,
  type SharedV4Warning,
} from "@ai-sdk/provider";
import type { H264MP4Encoder } from "h264-mp4-encoder";
import { VIDEO_STYLES, type VideoDuration, type VideoStyle } from "#common/generation.ts";
import { animationFrames, imageSize } from "#server/providers/demo/animate.ts";
import { yieldToEventLoop, type CallFile } from "#server/providers/demo/raster.ts";
import { indexMp4 } from "#server/providers/demo/mp4-index.ts";
import { readPrompt, saturate, type PromptReading } from "#server/providers/demo/prompt.ts";
import {
  buildScene,
  layoutSeed,
  createCanvas,
  paintSubjects,
  finish,
  renderScene,
  seedFrom,
  type Finish,
  type Frame,
  type Scene,
} from "#server/providers/demo/scene.ts";

const MODEL_ID = "demo-video";
const FPS = 24;
const POSTER_SECONDS = 1;

/** Multiples of 16, so the encoder needs no padding; small enough to encode a 10 s clip in a few seconds. */
const SIZES = {
  "16:9": [768, 432],
  "9:16": [432, 768],
  "1:1": [576, 576],
} as const;
type VideoRatio = keyof typeof SIZES;

export interface DemoVideoHooks {
  /** Called as frames are made: rising, from 0 to exactly 1 when the video is ready. */
  onProgress?: (fraction: number) => void;
}

export interface DemoVideoOptions {
  prompt: string;
  negativePrompt?: string;
  seed: number;
  style: VideoStyle;
  duration: VideoDuration;
  aspectRatio: VideoRatio;
  /** Image to video: the start frame, as a file (bytes or base64). The clip moves across it. */
  startImage?: CallFile;
  /** Image to video: the frame to end on, when there is one. */
  endImage?: CallFile;
  abortSignal?: AbortSignal;
  onProgress?: (fraction: number) => void;
}

export interface DemoVideo {
  mp4: Uint8Array;
  poster: Uint8Array;
  width: number;
  height: number;
  durationMs: number;
  fps: number;
}

interface Look {
  finish: Omit<Finish, "grainSeed">;
  frame: (time: number, progress: number) => Frame;
  letterbox: boolean;
  lowerThird: boolean;
}

function ease(x: number): number {
  return x * x * (3 - 2 * x);
}

function looks(style: VideoStyle): Look {
  const rest: Frame = { time: 0, zoom: 1, panX: 0, panY: 0, flat: false, bounce: false, motion: 1 };
  switch (style) {
    case "cinematic":
      return {
        finish: { grain: 0.02, vignette: 0.38, saturation: 1, contrast: 1.1, tealOrange: 0.9, lift: 0.015 },
        // The bars hide the bottom of the frame, so the camera looks a little lower to keep the foreground in.
        frame: (time, p) => ({ ...rest, time, zoom: 1 + 0.16 * ease(p), panX: 0.02 * ease(p), panY: 0.03 + 0.01 * p }),
        letterbox: true,
        lowerThird: false,
      };
    case "animation":
      return {
        finish: { grain: 0, vignette: 0.05, saturation: 1.15, contrast: 1.04, tealOrange: 0, lift: 0 },
        frame: (time) => ({ ...rest, time, flat: true, bounce: true, motion: 1.4 }),
        letterbox: false,
        lowerThird: false,
      };
    case "realistic":
      return {
        finish: { grain: 0.012, vignette: 0.18, saturation: 1, contrast: 1.03, tealOrange: 0, lift: 0 },
        frame: (time) => ({ ...rest, time, panX: 0.045 * time, zoom: 1.02 }),
        letterbox: false,
        lowerThird: false,
      };
    case "documentary":
      return {
        finish: { grain: 0.07, vignette: 0.3, saturation: 0.55, contrast: 0.92, tealOrange: 0, lift: 0.05 },
        // A hand-held camera: slow pan plus a small, irregular sway made of unrelated sines.
        frame: (time) => ({
          ...rest,
          time,
          zoom: 1.04,
          panX: 0.012 * time + 0.0035 * Math.sin(time * 2.3) + 0.0018 * Math.sin(time * 5.9 + 1),
          panY: 0.003 * Math.sin(time * 1.7 + 2) + 0.0015 * Math.sin(time * 6.7),
        }),
        letterbox: false,
        lowerThird: true,
      };
    case "abstract":
      return {
        finish: { grain: 0.025, vignette: 0.2, saturation: 1.25, contrast: 1.08, tealOrange: 0, lift: 0 },
        frame: (time) => ({ ...rest, time, zoom: 1 + 0.05 * Math.sin(time * 0.6), motion: 1.8 }),
        letterbox: false,
        lowerThird: false,
      };
  }
}

/** The style reshapes what the prompt asked for: abstract always morphs shapes, realistic always shows land. */
function styledReading(reading: PromptReading, style: VideoStyle): PromptReading {
  switch (style) {
    case "abstract":
      return { ...reading, composition: "abstract", palette: saturate(reading.palette, 1.35) };
    case "animation":
      return { ...reading, palette: saturate(reading.palette, 1.25) };
    case "realistic": {
      const composition =
        reading.composition === "abstract"
          ? "hills"
          : reading.composition === "cosmos"
            ? "mountains"
            : reading.composition;
      return { ...reading, composition };
    }
    default:
      return reading;
  }
}

/** Black bars that slide in during the first half second. */
function drawLetterbox(rgba: Uint8Array, width: number, height: number, time: number): void {
  const full = width > height ? Math.round((height - width / 2.39) / 2) : Math.round(height * 0.07);
  const bar = Math.round(full * ease(Math.min(1, time / 0.5)));
  if (bar <= 0) return;
  rgba.fill(0, 0, bar * width * 4);
  rgba.fill(0, (height - bar) * width * 4, height * width * 4);
  for (let i = 3; i < bar * width * 4; i += 4) rgba[i] = 255;
  for (let i = (height - bar) * width * 4 + 3; i < height * width * 4; i += 4) rgba[i] = 255;
}

/** A caption card without words: a translucent bar, an accent edge and two lines standing in for a title. */
function drawLowerThird(rgba: Uint8Array, width: number, height: number, time: number, scene: Scene): void {
  const slide = ease(Math.min(1, Math.max(0, (time - 0.8) / 0.6)));
  if (slide <= 0) return;
  const unit = Math.min(width, height);
  const x0 = Math.round(width * 0.05);
  const fullWidth = Math.round(width * (width > height ? 0.42 : 0.7));
  const barWidth = Math.round(fullWidth * slide);
  const y0 = Math.round(height * 0.78);
  const barHeight = Math.round(unit * 0.13);
  const accent = scene.palette.accents[0].map((c) => Math.round(c * 255)) as [number, number, number];
  const rect = (x: number, y: number, w: number, h: number, rgb: readonly number[], alpha: number) => {
    for (let yy = Math.max(0, y); yy < Math.min(height, y + h); yy++) {
      for (let xx = Math.max(0, x); xx < Math.min(width, x + w, x0 + barWidth); xx++) {
        const i = (yy * width + xx) * 4;
        rgba[i] = rgba[i]! + (rgb[0]! - rgba[i]!) * alpha;
        rgba[i + 1] = rgba[i + 1]! + (rgb[1]! - rgba[i + 1]!) * alpha;
        rgba[i + 2] = rgba[i + 2]! + (rgb[2]! - rgba[i + 2]!) * alpha;
      }
    }
  };
  const edge = Math.max(3, Math.round(unit * 0.012));
  rect(x0, y0, fullWidth, barHeight, [12, 14, 18], 0.72);
  rect(x0, y0, edge, barHeight, accent, 1);
  const pad = Math.round(unit * 0.03);
  rect(
    x0 + edge + pad,
    y0 + Math.round(barHeight * 0.22),
    Math.round(fullWidth * 0.6),
    Math.round(barHeight * 0.2),
    [235, 235, 230],
    0.95,
  );
  rect(
    x0 + edge + pad,
    y0 + Math.round(barHeight * 0.58),
    Math.round(fullWidth * 0.38),
    Math.round(barHeight * 0.12),
    [170, 172, 175],
    0.9,
  );
}

type EncoderFactory = () => Promise<H264MP4Encoder>;
let encoderFactory: Promise<EncoderFactory> | undefined;

/**
 * Loads the WASM encoder on first use: it is a megabyte the server does not need until someone makes a video.
 * Its Emscripten glue installs process-wide `uncaughtException` and `unhandledRejection` handlers that rethrow or
 * abort, which would override the server's own policy, so any handler that appears while it loads is removed.
 */
function loadEncoder(): Promise<EncoderFactory> {
  encoderFactory ??= (async () => {
    const exceptionHandlers = process.listeners("uncaughtException");
    const rejectionHandlers = process.listeners("unhandledRejection");
    try {
      // Node's own loader puts the CommonJS exports under `default`; other loaders (tsx) expose them as named.
      type Exports = { createH264MP4Encoder?: EncoderFactory };
      const loaded = (await import("h264-mp4-encoder")) as Exports & { default?: Exports };
      const create = loaded.createH264MP4Encoder ?? loaded.default?.createH264MP4Encoder;
      if (!create) throw new Error("h264-mp4-encoder has no createH264MP4Encoder export");
      return create;
    } finally {
      for (const handler of process.listeners("uncaughtException")) {
        if (!exceptionHandlers.includes(handler)) process.off("uncaughtException", handler);
      }
      for (const handler of process.listeners("unhandledRejection")) {
        if (!rejectionHandlers.includes(handler)) process.off("unhandledRejection", handler);
      }
    }
  })();
  encoderFactory.catch(() => {
    encoderFactory = undefined;
  });
  return encoderFactory;
}

/** The camera pushes in by up to this much: the subjects' drawings are made that much larger to stay sharp. */
const MAX_ZOOM = 1.2;

/** The frames of a clip, drawn one at a time into one buffer (RGBA): the scene, or a move across the start image. */
export async function demoVideoFrames(options: DemoVideoOptions) {
  const [width, height] = SIZES[options.aspectRatio];
  const count = options.duration * FPS;
  const clip = {
    width,
    height,
    count,
    /** The frame shown as the clip's poster, one second in. */
    posterIndex: Math.min(count - 1, POSTER_SECONDS * FPS),
  };
  if (options.startImage) {
    const frames = await animationFrames({
      start: options.startImage,
      end: options.endImage,
      width,
      height,
      count,
      style: options.style,
      seed: options.seed,
    });
    return { ...clip, ...frames };
  }
  const look = looks(options.style);
  const reading = styledReading(readPrompt(options.prompt, options.negativePrompt, options.seed), options.style);
  const scene = buildScene(reading, layoutSeed(options.prompt, options.seed), width / height);
  await paintSubjects(scene, height * MAX_ZOOM, reading);
  const canvas = createCanvas(width, height);
  const rgba = new Uint8Array(width * height * 4);
  return {
    ...clip,
    rgba,
    draw(i: number): Uint8Array {
      const time = i / FPS;
      renderScene(canvas, scene, look.frame(time, i / (count - 1)));
      finish(canvas, rgba, 4, { ...look.finish, grainSeed: options.seed + i });
      if (look.letterbox) drawLetterbox(rgba, width, height, time);
      if (look.lowerThird) drawLowerThird(rgba, width, height, time, scene);
      return rgba;
    },
  };
}

const posterPng = async (rgba: Uint8Array, width: number, height: number) => {
  const png = await sharp(rgba, { raw: { width, height, channels: 4 } })
    .png({ compressionLevel: 6 })
    .toBuffer();
  return new Uint8Array(png.buffer, png.byteOffset, png.byteLength);
};

/** The poster of the clip these options make (the same PNG as `renderDemoVideo`'s), without rendering the clip. */
export async function renderDemoPoster(options: DemoVideoOptions): Promise<Uint8Array> {
  const frames = await demoVideoFrames(options);
  return posterPng(frames.draw(frames.posterIndex), frames.width, frames.height);
}

/** Renders and encodes a clip frame by frame, giving the event loop a turn after each frame. */
export async function renderDemoVideo(options: DemoVideoOptions): Promise<DemoVideo> {
  const { abortSignal, onProgress } = options;
  abortSignal?.throwIfAborted();
  const { width, height, count: frames, posterIndex, ...clip } = await demoVideoFrames(options);
  let poster: Uint8Array | null = null;
  let reported = 0;
  const report = (fraction: number) => {
    if (fraction >= 1 || fraction - reported >= 0.01) {
      reported = fraction;
      onProgress?.(fraction);
    }
  };

  const encoder = await (await loadEncoder())();
  const file = `demo-${randomUUID()}.mp4`;
  let initialised = false;
  let finalised = false;
  try {
    encoder.width = width;
    encoder.height = height;
    encoder.frameRate = FPS;
    encoder.quantizationParameter = 27;
    encoder.speed = 10;
    encoder.groupOfPictures = FPS;
    encoder.outputFilename = file;
    encoder.initialize();
    initialised = true;
    for (let i = 0; i < frames; i++) {
      abortSignal?.throwIfAborted();
      const rgba = clip.draw(i);
      encoder.addFrameRgba(rgba);
      if (i === posterIndex) poster = rgba.slice();
      // Encoding finishes the last few per cent.
      report(((i + 1) / frames) * 0.97);
      await yieldToEventLoop();
    }
    abortSignal?.throwIfAborted();
    encoder.finalize();
    finalised = true;
    const mp4 = indexMp4(encoder.FS.readFile(file).slice());
    const png = await posterPng(poster ?? clip.rgba, width, height);
    report(1);
    return {
      mp4,
      poster: png,
      width,
      height,
      durationMs: options.duration * 1000,
      fps: FPS,
    };
  } finally {
    // Deleting an encoder that was never finalised aborts the whole WASM runtime, so finalise even a cancelled one.
    if (initialised && !finalised) {
      try {
        encoder.finalize();
      } catch {
        // The clip is being thrown away; the error that got us here is the one to report.
      }
    }
    try {
      if (initialised) encoder.FS.unlink(file);
      encoder.delete();
    } catch {
      // As above: never hide the original error behind a clean-up failure.
    }
  }
}

function isStyle(value: unknown): value is VideoStyle {
  return typeof value === "string" && (VIDEO_STYLES as readonly string[]).includes(value);
}

/**
 * The "Offline demo" video model: an animated scene from the prompt in one of five looks, encoded to H.264 MP4 in
 * WebAssembly on this machine. Given a start image (`image`, and optionally a `last_frame` in `frameImages`), it
 * moves a camera across that image instead, dissolving into the end image; the style chooses the move. The poster
 * frame and the video's facts come back in `providerMetadata.demo`.
 */
export function createDemoVideoModel(hooks?: DemoVideoHooks): VideoModelV4 {
  return {
    specificationVersion: "v4",
    provider: "demo",
    modelId: MODEL_ID,
    maxVideosPerCall: 1,
    async doGenerate(options) {
      const timestamp = new Date();
      const warnings: SharedV4Warning[] = [];
      const prompt = options.prompt ?? "";

      let duration: VideoDuration = 5;
      if (options.duration !== undefined) {
        duration = options.duration > 7.5 ? 10 : 5;
        if (options.duration !== duration) {
          warnings.push({
            type: "unsupported",
            feature: "duration",
            details: `Made ${duration} s; 5 and 10 are offered.`,
          });
        }
      }
      // Image to video: the start frame, and the end frame when one is tagged as the last.
      const startImage: CallFile | undefined =
        options.image ?? options.frameImages?.find((f) => f.frameType === "first_frame")?.image;
      const endImage: CallFile | undefined = options.frameImages?.find((f) => f.frameType === "last_frame")?.image;
      if (endImage && !startImage) {
        throw new InvalidArgumentError({ argument: "frameImages", message: "An end image needs a start image." });
      }
      // Without a ratio (or with "adaptive"), a clip from an image takes the offered shape nearest to the image's.
      const startSize = startImage ? await imageSize(startImage, "image", "start image") : null;
      const nearest = (): VideoRatio => {
        if (!startSize) return "16:9";
        const ratio = Math.log(startSize[0] / startSize[1]);
        const ratios = Object.keys(SIZES) as VideoRatio[];
        const distance = (r: VideoRatio) => Math.abs(Math.log(SIZES[r][0] / SIZES[r][1]) - ratio);
        return ratios.reduce((best, r) => (distance(r) < distance(best) ? r : best));
      };
      let aspectRatio: VideoRatio = nearest();
      if (options.aspectRatio !== undefined && options.aspectRatio !== "adaptive") {
        if (options.aspectRatio in SIZES) aspectRatio = options.aspectRatio as VideoRatio;
        else
          warnings.push({
            type: "unsupported",
            feature: "aspectRatio",
            details: `Made ${aspectRatio}; 16:9, 9:16 and 1:1 are offered.`,
          });
      }
      const demo = options.providerOptions.demo;
      const requested = demo?.style;
      const negativePrompt = typeof demo?.negativePrompt === "string" ? demo.negativePrompt : undefined;
      let style: VideoStyle = "cinematic";
      if (isStyle(requested)) style = requested;
      else if (requested !== undefined)
        warnings.push({ type: "unsupported", feature: "style", details: "Made cinematic." });
      if (options.fps !== undefined && options.fps !== FPS) {
        warnings.push({ type: "unsupported", feature: "fps", details: `Made ${FPS} fps.` });
      }
      if (options.resolution !== undefined) warnings.push({ type: "unsupported", feature: "resolution" });
      if (options.inputReferences?.length) warnings.push({ type: "unsupported", feature: "inputReferences" });
      if (options.generateAudio) warnings.push({ type: "unsupported", feature: "generateAudio" });
      if (options.n > 1) warnings.push({ type: "unsupported", feature: "n", details: "Made one video." });

      const video = await renderDemoVideo({
        prompt,
        negativePrompt,
        seed: options.seed ?? seedFrom(prompt),
        style,
        duration,
        aspectRatio,
        startImage,
        endImage,
        abortSignal: options.abortSignal,
        onProgress: hooks?.onProgress,
      });
      return {
        videos: [{ type: "binary", data: video.mp4, mediaType: "video/mp4" }],
        warnings,
        providerMetadata: {
          demo: {
            poster: Buffer.from(video.poster).toString("base64"),
            width: video.width,
            height: video.height,
            durationMs: video.durationMs,
            fps: video.fps,
            style,
          },
        },
        response: { timestamp, modelId: MODEL_ID, headers: undefined },
      };
    },
  };
}
