/**
 * The offline demo's painter. A scene is a handful of procedural layers (sky, lights, ridges, water, shapes) laid out
 * once from the prompt's reading and a seed; any frame of it can then be drawn straight into a float RGB buffer at
 * any size, with a camera (zoom, pan) and a time. Drawing procedurally rather than rasterising SVG keeps a 1024 px
 * still well under the time budget and lets the video re-draw every frame with true parallax.
 *
 * World coordinates: v runs 0 (top) to 1 (bottom) over the picture's height; u runs 0 to the aspect ratio.
 */
import {
  createRandom,
  fromHsl,
  hashString,
  mix,
  toHsl,
  type Composition,
  type Palette,
  type PromptReading,
  type Rgb,
} from "#server/providers/demo/prompt.ts";
import sharp from "sharp";
import {
  createPaint,
  SUBJECT_BY_ID,
  subjectSvg,
  type Placement,
  type SubjectId,
} from "#server/providers/demo/subjects.ts";

export interface Canvas {
  readonly width: number;
  readonly height: number;
  /** RGB, 0–1, row by row. */
  readonly data: Float32Array;
  /** Canvas pixels per picture height: the height itself, except for the coarse backdrop. */
  readonly unit: number;
}

export function createCanvas(width: number, height: number): Canvas {
  return { width, height, data: new Float32Array(width * height * 3), unit: height };
}

/** How much coarser the backdrop (sky and glows) is drawn than the picture. */
const BACKDROP_STEP = 4;

/** One moment of the scene as the camera sees it; a still image is the scene at rest. */
export interface Frame {
  /** Seconds since the start. */
  time: number;
  /** 1 at rest; near layers grow faster than far ones, which is what makes a push-in feel deep. */
  zoom: number;
  /** Camera offset in picture heights, taken fully by the nearest layer and barely by the sky. */
  panX: number;
  panY: number;
  /** Cartoon look: flat fills, dark outlines, hard-edged clouds. */
  flat: boolean;
  /** Cartoon motion: a bouncing sun and breathing hills. */
  bounce: boolean;
  /** How fast lights, ribbons and shapes drift and morph. */
  motion: number;
}

export const STILL: Frame = { time: 0, zoom: 1, panX: 0, panY: 0, flat: false, bounce: false, motion: 1 };

interface Trees {
  spacing: number;
  height: number;
  width: number;
  chance: number;
}

interface Buildings {
  cell: number;
  minHeight: number;
  maxHeight: number;
  lit: number;
  windows: Rgb[];
}

interface Layer {
  depth: number;
  base: number;
  amp: number;
  freq: number;
  octaves: number;
  ridged: number;
  phase: number;
  seed: number;
  colour: Rgb;
  mist: number;
  rim: number;
  shade: number;
  /** Peaks above this height (v) are snow-capped. */
  snowLine: number | null;
  /** Sea islands: the ridge rises only in some stretches. */
  islands: boolean;
  trees: Trees | null;
  buildings: Buildings | null;
  /** Drawn after the water, in front of it. */
  front: boolean;
  /** A headland: level ground on one side of `edge` (land on the left when `side` is -1), a sheer drop to the other. */
  cliff: { edge: number; side: -1 | 1 } | null;
}

interface Light {
  u: number;
  v: number;
  r: number;
  colour: Rgb;
  alpha: number;
  /** Stretch: 1 is round, less is flat like a stratus cloud. */
  squash: number;
  additive: boolean;
  orbit: number;
  speed: number;
  phase: number;
  /** Clouds have flat bottoms: nothing of the puff below this height (v). */
  floor: number;
}

interface Star {
  u: number;
  v: number;
  bright: number;
  size: number;
  phase: number;
}

interface Celestial {
  kind: "sun" | "moon" | "synth";
  u: number;
  v: number;
  r: number;
  crescent: number;
}

interface Ribbon {
  base: number;
  amp: number;
  freq: number;
  phase: number;
  thickness: number;
  colours: [Rgb, Rgb];
  speed: number;
}

interface Disc {
  u: number;
  v: number;
  r: number;
  colour: Rgb;
  ring: boolean;
  phase: number;
}

interface Planet {
  u: number;
  v: number;
  r: number;
  colours: [Rgb, Rgb];
  bands: number;
  ring: boolean;
  tilt: number;
}

/** One of the prompt's subjects, placed: its bottom centre stands at (u, v), and it is h picture heights tall. */
export interface PlacedSubject {
  id: SubjectId | "table";
  placement: Placement;
  u: number;
  v: number;
  h: number;
  ratio: number;
  /** The depth of what it stands on, so the camera moves it with that land. */
  depth: number;
  flip: boolean;
  variant: number;
  /** Drawn just after: the clouds, the back land, the water, or the land in front of the water. */
  stage: "sky" | "land" | "water" | "front";
  /** Picture heights per second, for things that fly. */
  drift: number;
  /** Boats rock on the water. */
  bob: number;
  /** The land it stands on, drawn just before it and before anything nearer. */
  on?: Layer;
}

/** A subject's drawing, rasterised: premultiplied RGBA, 0–1, at `unit` pixels per picture height. */
interface Sprite {
  width: number;
  height: number;
  unit: number;
  /** Room around the drawing's box, in sprite pixels, for what reaches out of it (a cross, a sail). */
  offset: number;
  data: Float32Array;
}

export interface Scene {
  composition: Composition;
  palette: Palette;
  aspect: number;
  seed: number;
  celestial: Celestial | null;
  stars: Star[];
  clouds: Light[];
  glows: Light[];
  layers: Layer[];
  water: { horizon: number; deep: Rgb } | null;
  grid: { horizon: number; colour: Rgb; ground: Rgb } | null;
  ribbons: Ribbon[];
  discs: Disc[];
  planet: Planet | null;
  gradientAngle: number | null;
  /** Which way the light comes from: -1 left, 1 right. */
  lightSide: number;
  subjects: PlacedSubject[];
  /** The subjects' drawings, once `paintSubjects` has made them; until then the subjects are left out. */
  sprites: Sprite[] | null;
}

function hash01(i: number, seed: number): number {
  let h = Math.imul(i ^ seed, 0x27d4eb2d);
  h ^= h >>> 15;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) / 4294967296;
}

function noise1(x: number, seed: number): number {
  const i = Math.floor(x);
  const f = x - i;
  const a = hash01(i, seed);
  const b = hash01(i + 1, seed);
  return a + (b - a) * f * f * (3 - 2 * f);
}

function fbm(x: number, seed: number, octaves: number, ridged: number): number {
  let sum = 0;
  let amp = 1;
  let norm = 0;
  let f = 1;
  for (let o = 0; o < octaves; o++) {
    let n = noise1(x * f, seed + o * 1013);
    if (ridged > 0) n = n * (1 - ridged) + (1 - Math.abs(2 * n - 1)) * ridged;
    sum += n * amp;
    norm += amp;
    amp *= 0.5;
    f *= 2.03;
  }
  const s = (sum / norm - 0.2) / 0.6;
  return s < 0 ? 0 : s > 1 ? 1 : s;
}

function clamp01(x: number): number {
  return x < 0 ? 0 : x > 1 ? 1 : x;
}

function scale(c: Rgb, k: number): Rgb {
  return [c[0] * k, c[1] * k, c[2] * k];
}

function luminance(c: Rgb): number {
  return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
}

function vivid(c: Rgb, saturation: number, lightness: number): Rgb {
  const [h, s, l] = toHsl(c);
  return fromHsl(h, Math.max(s, saturation), Math.max(l, lightness));
}

/** Lays the scene out: everything random is decided here, from the seed, so drawing is pure. */
export function buildScene(reading: PromptReading, seed: number, aspect: number): Scene {
  const random = createRandom(seed ^ 0x5bd1e995);
  const between = (a: number, b: number) => a + (b - a) * random();
  const { palette, composition, time, elements } = reading;
  const layerSeed = () => Math.floor(random() * 1e9);
  const lightSide = random() < 0.5 ? -1 : 1;
  const sunU = aspect * (lightSide < 0 ? between(0.15, 0.42) : between(0.58, 0.85));

  const scene: Scene = {
    composition,
    palette,
    aspect,
    seed,
    celestial: null,
    stars: [],
    clouds: [],
    glows: [],
    layers: [],
    water: null,
    grid: null,
    ribbons: [],
    discs: [],
    planet: null,
    gradientAngle: null,
    lightSide,
    subjects: [],
    sprites: null,
  };

  const layer = (options: Partial<Layer> & Pick<Layer, "depth" | "base" | "amp" | "colour">): Layer => ({
    freq: 2,
    octaves: 4,
    ridged: 0,
    phase: between(0, 100),
    seed: layerSeed(),
    mist: 0.2,
    rim: 0.12,
    shade: 0,
    snowLine: null,
    islands: false,
    trees: null,
    buildings: null,
    front: false,
    cliff: null,
    ...options,
  });

  let horizon = between(0.58, 0.66);
  if (composition !== "abstract") {
    if (elements.sun && reading.neon) {
      const r = between(0.16, 0.2) * Math.min(1, aspect * 1.2);
      scene.celestial = { kind: "synth", u: aspect / 2, v: horizon - r * 0.55, r, crescent: 0 };
    } else if (elements.sun && composition !== "cosmos") {
      const low = time === "golden";
      scene.celestial = {
        kind: "sun",
        u: sunU,
        v: low ? horizon - between(0.02, 0.1) : between(0.14, 0.3),
        r: low ? between(0.07, 0.095) : between(0.045, 0.06),
        crescent: 0,
      };
    } else if (elements.moon) {
      scene.celestial = {
        kind: "moon",
        u: sunU,
        v: between(0.12, 0.28),
        r: between(0.04, 0.06),
        crescent: random() < 0.5 ? between(0.35, 0.6) : 0,
      };
    }
  }

  if (elements.stars || composition === "cosmos") {
    const count = Math.round((composition === "cosmos" ? 700 : 320) * aspect);
    for (let i = 0; i < count; i++) {
      const big = random();
      scene.stars.push({
        u: between(-0.2, aspect + 0.2),
        v: composition === "cosmos" ? between(-0.1, 1.1) : between(-0.1, horizon),
        bright: 0.25 + 0.75 * random() ** 3,
        size: big > 0.97 ? between(1.5, 2.6) : 1,
        phase: between(0, Math.PI * 2),
      });
    }
  }

  if (elements.clouds && composition !== "cosmos" && composition !== "abstract") {
    const cloudColour: Rgb =
      time === "night"
        ? mix(palette.skyMid, palette.skyHorizon, 0.5)
        : time === "golden"
          ? mix(palette.light, palette.accents[0], 0.45)
          : mix(palette.light, [1, 1, 1], 0.6);
    const clusters = Math.round(between(2, 5) * Math.max(0.7, aspect));
    for (let c = 0; c < clusters; c++) {
      const cu = between(-0.1, aspect + 0.1);
      const cv = between(0.08, horizon - 0.15);
      const size = between(0.035, 0.07) * (1.25 - cv);
      const puffs = Math.round(between(5, 9));
      const speed = between(0.006, 0.014);
      const alpha = time === "night" ? between(0.3, 0.45) : between(0.85, 0.97);
      for (let p = 0; p < puffs; p++) {
        // Puffs bunch up and rise toward the middle of a cloud, over a flat base.
        const offset = between(-1, 1);
        scene.clouds.push({
          u: cu + offset * 2.4 * size,
          v: cv - between(0.1, 0.7) * size * (1 - Math.abs(offset) * 0.7),
          r: size * between(0.7, 1.25) * (1.2 - Math.abs(offset) * 0.5),
          colour: cloudColour,
          alpha,
          squash: between(0.55, 0.75),
          additive: false,
          orbit: 0,
          speed,
          phase: 0,
          floor: cv + size * 0.3,
        });
      }
    }
  }

  const land = palette.land;
  const withSnow = time !== "night" && !reading.neon && luminance(land[0]) < 0.85;

  switch (composition) {
    case "mountains":
    case "hills":
    case "dunes": {
      const mountains = composition === "mountains";
      const dunes = composition === "dunes";
      const specs = mountains
        ? [
            { base: horizon, amp: 0.34, freq: 2.4, octaves: 5, ridged: 0.88, shade: 0.22 },
            { base: horizon + 0.09, amp: 0.24, freq: 3, octaves: 5, ridged: 0.75, shade: 0.2 },
            { base: horizon + 0.19, amp: 0.16, freq: 3.2, octaves: 4, ridged: 0.4, shade: 0.14 },
            { base: 0.97, amp: 0.12, freq: 2.2, octaves: 3, ridged: 0.1, shade: 0.08 },
          ]
        : dunes
          ? [
              { base: horizon + 0.02, amp: 0.1, freq: 2, octaves: 3, ridged: 0.8, shade: 0.45 },
              { base: horizon + 0.1, amp: 0.14, freq: 1.8, octaves: 3, ridged: 0.75, shade: 0.45 },
              { base: horizon + 0.22, amp: 0.16, freq: 1.4, octaves: 3, ridged: 0.7, shade: 0.45 },
              { base: 1.02, amp: 0.16, freq: 1.2, octaves: 3, ridged: 0.6, shade: 0.45 },
            ]
          : [
              { base: horizon + 0.02, amp: 0.14, freq: 1.6, octaves: 3, ridged: 0, shade: 0.06 },
              { base: horizon + 0.1, amp: 0.14, freq: 1.9, octaves: 3, ridged: 0, shade: 0.06 },
              { base: horizon + 0.2, amp: 0.14, freq: 1.7, octaves: 2, ridged: 0, shade: 0.06 },
              { base: 1, amp: 0.14, freq: 1.3, octaves: 2, ridged: 0, shade: 0.06 },
            ];
      specs.forEach((spec, i) => {
        const near = i === 3;
        scene.layers.push(
          layer({
            ...spec,
            depth: 0.25 + i * 0.25,
            colour: land[i]!,
            mist: [0.4, 0.32, 0.22, 0.1][i]!,
            rim: dunes ? 0.22 : 0.14,
            snowLine: mountains && withSnow && i < 2 ? spec.base - spec.amp * 0.74 : null,
            trees:
              elements.trees && !dunes && ((near && random() < 0.55) || (!mountains && i === 2 && random() < 0.4))
                ? { spacing: 0.035 + i * 0.01, height: 0.025 + i * 0.015, width: 0.012 + i * 0.004, chance: 0.5 }
                : null,
          }),
        );
      });
      if (reading.neon) {
        scene.layers.splice(2);
        for (const l of scene.layers) l.amp *= 0.55;
        scene.grid = { horizon: horizon + 0.1, colour: palette.accents[0], ground: land[3] };
      }
      break;
    }
    case "forest": {
      scene.layers.push(
        layer({ depth: 0.2, base: horizon, amp: 0.26, freq: 2.2, octaves: 5, ridged: 0.7, colour: land[0], mist: 0.4 }),
      );
      for (let i = 1; i < 4; i++) {
        scene.layers.push(
          layer({
            depth: 0.2 + i * 0.27,
            base: horizon + 0.06 + i * 0.11,
            amp: 0.08,
            freq: 1.6,
            octaves: 3,
            colour: land[i]!,
            mist: [0.45, 0.45, 0.35, 0.15][i]!,
            rim: 0.08,
            trees: {
              spacing: 0.012 + i * 0.012,
              height: 0.05 + i * 0.05,
              width: 0.016 + i * 0.016,
              chance: i === 3 ? 0.55 : 0.85,
            },
          }),
        );
      }
      break;
    }
    case "sea": {
      horizon = between(0.56, 0.64);
      scene.layers.push(
        layer({
          depth: 0.3,
          base: horizon,
          amp: between(0.08, 0.16),
          freq: 2.2,
          octaves: 5,
          ridged: 0.6,
          colour: land[0],
          mist: 0.3,
          islands: true,
        }),
      );
      if (random() < 0.5) {
        scene.layers.push(
          layer({
            depth: 0.45,
            base: horizon,
            amp: between(0.04, 0.08),
            freq: 3.5,
            octaves: 4,
            ridged: 0.4,
            colour: land[1],
            mist: 0.2,
            islands: true,
          }),
        );
      }
      scene.water = { horizon, deep: mix(mix(palette.skyTop, land[3], 0.5), [0, 0, 0], 0.25) };
      if (random() < 0.5) {
        scene.layers.push(shoreLayer(layer, land[3], 1.03));
      }
      break;
    }
    case "city": {
      const night = time === "night";
      const waterfront = elements.water && !standing(reading) && random() < 0.45;
      const ground = waterfront ? between(0.74, 0.8) : between(0.8, 0.86);
      const windows = night
        ? [palette.light, vivid(palette.accents[0], 0.6, 0.6), vivid(palette.accents[1], 0.6, 0.6)]
        : [mix(palette.skyHorizon, palette.light, 0.5), mix(land[2], palette.skyMid, 0.5)];
      const specs = [
        { depth: 0.3, base: ground - 0.05, cell: 0.045, minHeight: 0.12, maxHeight: 0.34, lit: 0.12 },
        { depth: 0.55, base: ground - 0.02, cell: 0.06, minHeight: 0.08, maxHeight: 0.26, lit: 0.25 },
        { depth: 0.8, base: ground, cell: 0.085, minHeight: 0.05, maxHeight: 0.24, lit: 0.35 },
      ];
      specs.forEach((spec, i) => {
        scene.layers.push(
          layer({
            depth: spec.depth,
            base: spec.base,
            amp: 0,
            colour: land[i + (night ? 1 : 0)]!,
            mist: [0.35, 0.25, 0.12][i]!,
            rim: 0.05,
            buildings: { ...spec, windows, lit: night ? spec.lit : spec.lit * 1.6 },
          }),
        );
      });
      if (waterfront) {
        scene.water = { horizon: ground, deep: mix(palette.skyTop, [0, 0, 0], 0.4) };
      } else {
        scene.layers.push(
          layer({ depth: 1, base: ground + 0.05, amp: 0.02, freq: 1, octaves: 2, colour: land[3], mist: 0.05 }),
        );
      }
      for (let i = 0; i < 4; i++) {
        scene.glows.push({
          u: between(0, aspect),
          v: ground - 0.05,
          r: between(0.15, 0.3),
          colour: palette.accents[i % 3]!,
          alpha: night ? 0.3 : 0.12,
          squash: 0.45,
          additive: true,
          orbit: 0.02,
          speed: 0.2,
          phase: between(0, 6),
          floor: Infinity,
        });
      }
      break;
    }
    case "cosmos": {
      const curveV = between(0.3, 0.7);
      const tilt = between(-0.35, 0.35);
      const wave = between(2, 4);
      const phase = between(0, 6);
      // A nebula: many overlapping glows along one wavy band, big faint ones and small bright knots.
      const clouds = Math.round(between(40, 55) * Math.max(0.8, aspect));
      for (let i = 0; i < clouds; i++) {
        const u = between(-0.1, aspect + 0.1);
        const knot = random() < 0.35;
        scene.glows.push({
          u,
          v: curveV + tilt * (u - aspect / 2) + Math.sin(u * wave + phase) * 0.08 + between(-0.08, 0.08),
          r: knot ? between(0.02, 0.05) : between(0.06, 0.2),
          colour: knot
            ? mix(palette.accents[Math.floor(random() * 3)]!, palette.light, 0.4)
            : palette.accents[Math.floor(random() * 3)]!,
          alpha: knot ? between(0.25, 0.5) : between(0.1, 0.25),
          squash: between(0.5, 1),
          additive: true,
          orbit: 0.02,
          speed: between(0.1, 0.3),
          phase: between(0, 6),
          floor: Infinity,
        });
      }
      if (random() < 0.75) {
        const r = between(0.1, 0.22);
        scene.planet = {
          u: between(r, aspect - r),
          v: between(0.25, 0.7),
          r,
          colours: [vivid(palette.accents[0], 0.35, 0.45), vivid(palette.accents[2], 0.35, 0.6)],
          bands: between(4, 9),
          ring: random() < 0.5,
          tilt: between(-0.4, 0.4),
        };
      }
      if (random() < 0.45) {
        scene.layers.push(
          layer({
            depth: 1,
            base: 1.02,
            amp: 0.16,
            freq: 2.4,
            octaves: 5,
            ridged: 0.7,
            colour: mix(land[3], [0, 0, 0], 0.3),
            mist: 0.1,
            rim: 0.35,
            shade: 0.2,
          }),
        );
      }
      break;
    }
    case "abstract": {
      scene.gradientAngle = between(0, Math.PI * 2);
      const colours = [...palette.accents, palette.skyMid, palette.light];
      for (let i = 0; i < 5; i++) {
        scene.glows.push({
          u: between(0, aspect),
          v: between(0, 1),
          r: between(0.25, 0.5),
          colour: colours[i]!,
          alpha: between(0.6, 0.9),
          squash: between(0.6, 1),
          additive: false,
          orbit: between(0.06, 0.15),
          speed: between(0.25, 0.5) * (random() < 0.5 ? -1 : 1),
          phase: between(0, 6),
          floor: Infinity,
        });
      }
      const ribbons = Math.round(between(2, 3.99));
      for (let i = 0; i < ribbons; i++) {
        scene.ribbons.push({
          base: between(0.25, 0.8),
          amp: between(0.05, 0.14),
          freq: between(2, 5),
          phase: between(0, 6),
          thickness: between(0.03, 0.08),
          colours: [vivid(palette.accents[i % 3]!, 0.5, 0.5), vivid(palette.accents[(i + 1) % 3]!, 0.5, 0.55)],
          speed: between(0.4, 0.9) * (random() < 0.5 ? -1 : 1),
        });
      }
      const discs = Math.round(between(1, 3.99));
      for (let i = 0; i < discs; i++) {
        scene.discs.push({
          u: between(0.1, aspect - 0.1),
          v: between(0.15, 0.85),
          r: between(0.05, 0.16),
          colour: i === 0 ? palette.light : vivid(palette.accents[(i + 2) % 3]!, 0.5, 0.55),
          ring: random() < 0.4,
          phase: between(0, 6),
        });
      }
      break;
    }
  }

  if (reading.subjects.length > 0 || reading.cliff) placeSubjects(scene, reading, random, layer);

  const sun = scene.celestial;
  if (sun) {
    const far = scene.layers[0];
    if (sun.kind === "sun" && time === "golden" && far && !far.buildings) {
      // A low sun sits on the far ridge, partly hidden, rather than floating or vanishing behind it.
      sun.v = ridgeV(far, sun.u, STILL, aspect) - sun.r * 0.35;
    }
    const { u, v, r } = sun;
    // A glow that suits a deep sky blows a pale one out to white, so it fades as the sky gets lighter.
    const pale = Math.min(1, Math.max(0.35, 1.25 - luminance(palette.skyHorizon)));
    const glow = (sun.kind === "moon" ? 0.25 : time === "golden" || sun.kind === "synth" ? 0.5 : 0.32) * pale;
    const base = { colour: palette.light, additive: true, orbit: 0, speed: 0, phase: 0, floor: Infinity };
    scene.glows.unshift(
      { ...base, u, v, r: r * 6.5, alpha: glow * 0.45, squash: 0.7 },
      { ...base, u, v, r: r * 2.2, alpha: glow, squash: 1 },
    );
  }
  return scene;
}

/** Whether any of the prompt's subjects stands on the ground (and so needs some). */
/** The low land in front of a sea: what a subject there stands on. */
function shoreLayer(layer: LayerFactory, colour: Rgb, base: number): Layer {
  return layer({
    depth: 1,
    base,
    amp: 0.1,
    freq: 1.4,
    octaves: 4,
    ridged: 0.3,
    colour,
    mist: 0.05,
    rim: 0.25,
    shade: 0.15,
    front: true,
  });
}

function standing(reading: PromptReading): boolean {
  return reading.cliff || reading.subjects.some((id) => SUBJECT_BY_ID.get(id)?.placement === "ground");
}

const BUILDINGS = new Set<SubjectId>(["house", "castle", "tower", "church", "windmill"]);
const HILLY = new Set<Composition>(["hills", "mountains", "dunes", "forest"]);

type LayerFactory = (options: Partial<Layer> & Pick<Layer, "depth" | "base" | "amp" | "colour">) => Layer;

/**
 * Puts the prompt's subjects into the laid-out landscape: the first named is the main one, near the middle (or on
 * the cliff's edge), the others beside it and smaller. Adds what they need: a cliff or a shore to stand on above the
 * sea, a table for small objects, a glowing lamp at night.
 */
function placeSubjects(scene: Scene, reading: PromptReading, random: () => number, layer: LayerFactory): void {
  const between = (a: number, b: number) => a + (b - a) * random();
  const { aspect, palette } = scene;
  const land = palette.land;
  const ids = reading.subjects;
  const lighthouse = ids.includes("lighthouse");
  const wantsCliff = reading.cliff || (lighthouse && scene.composition === "sea");
  const abstract = scene.composition === "abstract";

  let cliff: Layer | null = null;
  if (wantsCliff && !abstract) {
    scene.layers = scene.layers.filter((l) => !l.front);
    const side = random() < 0.5 ? -1 : 1;
    const edge = side < 0 ? aspect * between(0.5, 0.62) : aspect * between(0.38, 0.5);
    cliff = layer({
      depth: 1,
      base: between(0.66, 0.72),
      amp: 0.1,
      freq: 3,
      octaves: 5,
      ridged: 0.5,
      colour: mix(land[3], [0.32, 0.3, 0.28], 0.35),
      mist: 0.04,
      rim: 0.3,
      shade: 0.35,
      front: Boolean(scene.water),
      cliff: { edge, side },
    });
    scene.layers.push(cliff);
  } else if (standing(reading) && !abstract) {
    if (scene.composition === "sea" && !scene.layers.some((l) => l.front)) {
      // A shore in front of the sea for the subject to stand on.
      scene.layers.push(shoreLayer(layer, land[3], 1.0));
    } else if (scene.composition === "cosmos" && scene.layers.length === 0) {
      scene.layers.push(
        layer({
          depth: 1,
          base: 1.02,
          amp: 0.12,
          freq: 1.6,
          octaves: 4,
          ridged: 0.5,
          colour: mix(land[3], [0, 0, 0], 0.3),
          mist: 0.1,
          rim: 0.35,
          shade: 0.2,
        }),
      );
    }
  }

  // What ground things stand on: the cliff, else the nearest land.
  const ground = cliff ?? scene.layers[scene.layers.length - 1] ?? null;
  const groundV = (on: Layer | null, u: number, half: number) => {
    if (!on) return 0.9;
    let v = 0;
    for (let k = -4; k <= 4; k++) v = Math.max(v, ridgeV(on, u + (k / 4) * half * 0.7, STILL, aspect));
    return v;
  };
  // Where there is room: on the cliff, the level side; elsewhere, the whole width.
  const span: [number, number] = cliff?.cliff
    ? cliff.cliff.side < 0
      ? [0.06 * aspect, cliff.cliff.edge - 0.06]
      : [cliff.cliff.edge + 0.06, 0.94 * aspect]
    : [0.12 * aspect, 0.88 * aspect];
  const sea: [number, number] = cliff?.cliff
    ? cliff.cliff.side < 0
      ? [cliff.cliff.edge + 0.08, aspect - 0.05]
      : [0.05, cliff.cliff.edge - 0.08]
    : [0.15 * aspect, 0.85 * aspect];
  const slots = [0.5, 0.2, 0.8];
  const at = (range: [number, number], slot: number) =>
    range[0] + (range[1] - range[0]) * clamp01(slots[slot]! + between(-0.06, 0.06));

  const variant = () => Math.floor(random() * 12);
  const flip = () => random() < 0.5;
  // Small objects stand on a table in the foreground when one of them is the main subject, and then so does
  // whatever else stands (a cat beside the cup); beside a main subject that stands outside, they stand on the land.
  const hasTable = SUBJECT_BY_ID.get(ids[0]!)?.placement === "table";
  if (hasTable) {
    scene.subjects.push({
      id: "table",
      placement: "table",
      u: aspect / 2,
      v: 1.01,
      h: 0.16,
      ratio: (aspect + 0.1) / 0.16,
      depth: 1,
      flip: false,
      variant: variant(),
      stage: "front",
      drift: 0,
      bob: 0,
    });
  }

  ids.forEach((id, i) => {
    const spec = SUBJECT_BY_ID.get(id);
    if (!spec) return;
    const size = i === 0 ? 1 : 0.75;
    let placement: Placement = spec.placement;
    if (placement === "water" && !scene.water) placement = "ground";
    if (placement === "table" && !hasTable) placement = "ground";
    if (placement === "ground" && hasTable) placement = "table";
    const placed = {
      id,
      placement,
      ratio: spec.ratio,
      flip: id === "lighthouse" || id === "portrait" ? false : flip(),
      variant: variant(),
      drift: 0,
      bob: 0,
    };
    if (abstract && placement !== "sky") {
      const h = spec.height * (placement === "portrait" ? 1 : 1.5) * size;
      scene.subjects.push({
        ...placed,
        u: at([0.15 * aspect, 0.85 * aspect], i),
        v: placement === "portrait" ? 1.02 : Math.min(0.92, 0.5 + h / 2),
        h,
        depth: 1,
        stage: "front",
      });
      return;
    }
    switch (placement) {
      case "portrait":
        scene.subjects.push({ ...placed, u: aspect / 2, v: 1.02, h: spec.height, depth: 1, stage: "front" });
        return;
      case "table": {
        const h = spec.height * (spec.placement === "table" ? 1.25 : 0.9) * size;
        scene.subjects.push({
          ...placed,
          u: at([0.18 * aspect, 0.82 * aspect], i),
          v: 0.875,
          h,
          depth: 1,
          stage: "front",
        });
        return;
      }
      case "sky": {
        const count = id === "bird" ? Math.round(between(3, 6)) : id === "balloon" ? Math.round(between(1, 3)) : 1;
        const speed = id === "plane" ? 0.04 : id === "bird" ? 0.02 : 0.006;
        const direction = random() < 0.5 ? -1 : 1;
        const u0 = at([0.2 * aspect, 0.8 * aspect], i);
        const v0 = between(0.14, 0.3);
        for (let k = 0; k < count; k++) {
          const h = spec.height * size * (k === 0 ? 1 : between(0.45, 0.8));
          scene.subjects.push({
            ...placed,
            // A flock spreads out behind its leader, in a loose V.
            u: u0 - direction * k * between(0.05, 0.09),
            v: v0 + (k === 0 ? 0 : ((k % 2) * 2 - 1) * k * between(0.01, 0.03)) + (id === "balloon" ? k * 0.05 : 0),
            h,
            depth: 0.15,
            flip: direction > 0,
            stage: "sky",
            drift: speed * direction,
          });
        }
        return;
      }
      case "water": {
        const water = scene.water!;
        const bridge = id === "bridge";
        const v = bridge ? water.horizon + between(0.1, 0.14) : between(water.horizon + 0.1, 0.9);
        const near = (v - water.horizon) / (1 - water.horizon);
        const h = bridge ? spec.height : spec.height * size * (0.55 + near);
        scene.subjects.push({
          ...placed,
          u: bridge ? aspect / 2 : at(sea, i),
          v: bridge ? v + 0.02 : v + h * 0.05,
          h,
          ratio: bridge ? (aspect + 0.2) / h : spec.ratio,
          depth: 0.5,
          stage: "water",
          bob: bridge ? 0 : 0.004,
        });
        return;
      }
      case "ground": {
        let on = ground;
        let u = cliff?.cliff && id === "lighthouse" ? cliff.cliff.edge + cliff.cliff.side * 0.1 : at(span, i);
        let h = spec.height * size;
        const half = (h * spec.ratio) / 2;
        const farther = scene.layers[scene.layers.length - 2];
        if (!cliff && BUILDINGS.has(id) && HILLY.has(scene.composition) && farther && !farther.buildings) {
          // A building stands on a hilltop in the middle distance, with the nearer land in front of it.
          on = farther;
          h *= 0.8;
          let best = u;
          for (let k = -6; k <= 6; k++) {
            const c = Math.min(span[1], Math.max(span[0], u + k * 0.025));
            if (ridgeV(farther, c, STILL, aspect) < ridgeV(farther, best, STILL, aspect)) best = c;
          }
          u = best;
        }
        const v = groundV(on, u, half) + h * 0.03;
        // Tall things stay inside the picture.
        h = Math.min(h, v - 0.06);
        scene.subjects.push({
          ...placed,
          u,
          v,
          h,
          depth: on?.depth ?? 1,
          stage: "land",
          on: on ?? undefined,
        });
        return;
      }
    }
  });

  if (lighthouse && reading.time === "night") {
    const tower = scene.subjects.find((s) => s.id === "lighthouse");
    if (tower) {
      scene.glows.push({
        u: tower.u,
        v: tower.v - tower.h * 0.83,
        r: tower.h * 0.35,
        colour: mix(palette.light, [1, 0.9, 0.55], 0.6),
        alpha: 0.9,
        squash: 1,
        additive: true,
        orbit: 0,
        speed: 0,
        phase: 0,
        floor: Infinity,
      });
    }
  }
}

const SPRITE_PAD = 12;

/**
 * Rasterises each placed subject's drawing once, sized for `unit` pixels per picture height (a video asks for a
 * little more than its height, so a camera push stays sharp). Subjects that share a drawing share the work.
 */
export async function paintSubjects(scene: Scene, unit: number, reading: PromptReading): Promise<void> {
  if (scene.subjects.length === 0) {
    scene.sprites = [];
    return;
  }
  const main = reading.subjects[0];
  const paint = createPaint(reading.time, scene.palette.light, scene.palette.skyMid);
  const named = createPaint(reading.time, scene.palette.light, scene.palette.skyMid, reading.subjectColour);
  const made = new Map<string, Promise<Sprite>>();
  scene.sprites = await Promise.all(
    scene.subjects.map((s) => {
      const own = s.id === main;
      const height = Math.max(4, Math.round(s.h * unit));
      const width = Math.max(4, Math.round(s.h * s.ratio * unit));
      const key = `${s.id}:${s.variant}:${s.flip}:${width}x${height}`;
      let sprite = made.get(key);
      if (!sprite) {
        sprite = rasterise(s, unit, width, height, subjectSvg(s.id, own ? named : paint, s.variant));
        made.set(key, sprite);
      }
      return sprite;
    }),
  );
}

async function rasterise(s: PlacedSubject, unit: number, width: number, height: number, body: string): Promise<Sprite> {
  // Drawings are made in a box 100 units tall; a table or a bridge is stretched to the picture's width.
  const native = s.id === "table" ? 400 : s.id === "bridge" ? 420 : 0;
  const stretch = native > 0;
  const vw = stretch ? native : s.ratio * 100;
  const pad = stretch ? 0 : SPRITE_PAD;
  const k = height / 100;
  const pw = Math.round(width + 2 * pad * k);
  const ph = Math.round(height + 2 * pad * k);
  const flip = s.flip ? `transform="translate(${vw} 0) scale(-1 1)"` : "";
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${pw}" height="${ph}" ` +
    `viewBox="${-pad} ${-pad} ${vw + 2 * pad} ${100 + 2 * pad}" preserveAspectRatio="${stretch ? "none" : "xMidYMid meet"}">` +
    `<g ${flip}>${body}</g></svg>`;
  const { data, info } = await sharp(Buffer.from(svg)).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const out = new Float32Array(info.width * info.height * 4);
  for (let i = 0; i < out.length; i += 4) {
    const a = data[i + 3]! / 255;
    out[i] = (data[i]! / 255) * a;
    out[i + 1] = (data[i + 1]! / 255) * a;
    out[i + 2] = (data[i + 2]! / 255) * a;
    out[i + 3] = a;
  }
  return { width: info.width, height: info.height, unit, offset: pad * k, data: out };
}

/**
 * Draws the subjects of one stage, or those standing on one layer, over what is there, moved and scaled with the
 * layer each stands on.
 */
function drawSubjects(canvas: Canvas, scene: Scene, frame: Frame, stage: PlacedSubject["stage"] | Layer): void {
  const sprites = scene.sprites;
  if (!sprites) return;
  const { width, height, data } = canvas;
  const t = frame.time * frame.motion;
  scene.subjects.forEach((s, index) => {
    if (typeof stage === "string" ? s.stage !== stage || s.on : s.on !== stage) return;
    const sprite = sprites[index];
    if (!sprite) return;
    const view = viewAt(frame, s.depth, canvas, scene.aspect);
    const u = s.u + s.drift * t;
    const v = s.v + s.bob * Math.sin(t * 1.6 + index);
    // Sprite pixels per canvas pixel; 1 for a still, where the drawing is copied as it was rasterised.
    const step = sprite.unit * view.du;
    let left = (u - s.h * s.ratio * 0.5 - view.u0) / view.du - sprite.offset / step;
    let top = (v - s.h - view.v0) / view.du - sprite.offset / step;
    const exact = Math.abs(step - 1) < 1e-6;
    if (exact) {
      left = Math.round(left);
      top = Math.round(top);
    }
    const x0 = Math.max(0, Math.floor(left));
    const x1 = Math.min(width, Math.ceil(left + sprite.width / step));
    const y0 = Math.max(0, Math.floor(top));
    const y1 = Math.min(height, Math.ceil(top + sprite.height / step));
    const sw = sprite.width;
    const sd = sprite.data;
    for (let y = y0; y < y1; y++) {
      const sy = (y + 0.5 - top) * step - 0.5;
      const iy = Math.floor(sy);
      const fy = sy - iy;
      if (iy < -1 || iy >= sprite.height) continue;
      for (let x = x0; x < x1; x++) {
        const sx = (x + 0.5 - left) * step - 0.5;
        const ix = Math.floor(sx);
        const fx = sx - ix;
        if (ix < -1 || ix >= sw) continue;
        let r = 0;
        let g = 0;
        let b = 0;
        let a = 0;
        for (let k = 0; k < 4; k++) {
          const px = ix + (k & 1);
          const py = iy + (k >> 1);
          if (px < 0 || py < 0 || px >= sw || py >= sprite.height) continue;
          const w = (k & 1 ? fx : 1 - fx) * (k >> 1 ? fy : 1 - fy);
          if (w === 0) continue;
          const j = (py * sw + px) * 4;
          r += sd[j]! * w;
          g += sd[j + 1]! * w;
          b += sd[j + 2]! * w;
          a += sd[j + 3]! * w;
        }
        if (a <= 0.002) continue;
        const i = (y * width + x) * 3;
        data[i] = data[i]! * (1 - a) + r;
        data[i + 1] = data[i + 1]! * (1 - a) + g;
        data[i + 2] = data[i + 2]! * (1 - a) + b;
      }
    }
  });
}

/** Where a layer at this depth sits on screen: pixel x maps to u = u0 + x·du, world v to row (v − v0)/du. */
interface View {
  u0: number;
  v0: number;
  du: number;
}

function viewAt(frame: Frame, depth: number, canvas: Canvas, aspect: number): View {
  const zoom = 1 + (frame.zoom - 1) * (0.3 + 0.7 * depth);
  const reach = 0.06 + 0.94 * depth;
  const du = 1 / (canvas.unit * zoom);
  const half = 0.5 / canvas.unit;
  return {
    du,
    u0: (half - aspect / 2) / zoom + aspect / 2 + frame.panX * reach,
    v0: (half - 0.5) / zoom + 0.5 + frame.panY * reach,
  };
}

function drawSky(canvas: Canvas, scene: Scene, frame: Frame): void {
  const { width, height, data } = canvas;
  const p = scene.palette;
  if (scene.gradientAngle !== null) {
    const view = viewAt(frame, 0.3, canvas, scene.aspect);
    const angle = scene.gradientAngle + frame.time * 0.05 * frame.motion;
    const cos = Math.cos(angle);
    const sin = Math.sin(angle);
    const extent = Math.abs(cos) * scene.aspect + Math.abs(sin);
    for (let y = 0; y < height; y++) {
      const v = view.v0 + y * view.du - 0.5;
      let i = y * width * 3;
      for (let x = 0; x < width; x++, i += 3) {
        const u = view.u0 + x * view.du - scene.aspect / 2;
        const t = clamp01((u * cos + v * sin) / extent + 0.5);
        const [a, b, k] = t < 0.5 ? [p.skyTop, p.skyMid, t * 2] : [p.skyMid, p.skyHorizon, t * 2 - 1];
        const s = k * k * (3 - 2 * k);
        data[i] = a[0] + (b[0] - a[0]) * s;
        data[i + 1] = a[1] + (b[1] - a[1]) * s;
        data[i + 2] = a[2] + (b[2] - a[2]) * s;
      }
    }
    return;
  }
  const view = viewAt(frame, 0.05, canvas, scene.aspect);
  const horizon = scene.water?.horizon ?? scene.grid?.horizon ?? scene.layers[0]?.base ?? 0.65;
  for (let y = 0; y < height; y++) {
    const v = view.v0 + y * view.du;
    // A Bézier through the three sky colours: no visible seam where one blend would meet another.
    const t = clamp01(v / horizon) ** 0.9;
    const a = (1 - t) ** 3;
    const m = 3 * t * (1 - t);
    const c = t ** 3;
    const r = p.skyTop[0] * a + p.skyMid[0] * m + p.skyHorizon[0] * c;
    const g = p.skyTop[1] * a + p.skyMid[1] * m + p.skyHorizon[1] * c;
    const b = p.skyTop[2] * a + p.skyMid[2] * m + p.skyHorizon[2] * c;
    let i = y * width * 3;
    for (let x = 0; x < width; x++, i += 3) {
      data[i] = r;
      data[i + 1] = g;
      data[i + 2] = b;
    }
  }
}

/**
 * A soft elliptical light (added) or a cloud puff (painted over, with a defined edge, a shaded underside and a flat
 * base); flat mode turns puffs into hard-edged cartoon shapes.
 */
function drawLight(canvas: Canvas, light: Light, frame: Frame, depth: number, scene: Scene, drift: number): void {
  const { width, height, data } = canvas;
  const view = viewAt(frame, depth, canvas, scene.aspect);
  const t = frame.time * frame.motion;
  const u = light.u + Math.sin(t * light.speed + light.phase) * light.orbit + drift;
  const v = light.v + Math.cos(t * light.speed * 0.8 + light.phase) * light.orbit * 0.7;
  const cx = (u - view.u0) / view.du;
  const cy = (v - view.v0) / view.du;
  const rx = light.r / view.du;
  const ry = rx * light.squash;
  const puff = !light.additive && light.floor !== Infinity;
  const floorY = puff ? (light.floor - view.v0) / view.du : Infinity;
  const reach = puff ? 1.3 : 2.6;
  const x0 = Math.max(0, Math.floor(cx - rx * reach));
  const x1 = Math.min(width, Math.ceil(cx + rx * reach));
  const y0 = Math.max(0, Math.floor(cy - ry * reach));
  const y1 = Math.min(height, Math.ceil(Math.min(cy + ry * reach, floorY + 1)));
  if (x0 >= x1 || y0 >= y1) return;
  const [cr, cg, cb] = light.colour;
  const under = mix(light.colour, scene.palette.skyMid, frame.flat ? 0.25 : 0.4);
  const irx2 = 1 / (rx * rx);
  const iry2 = 1 / (ry * ry);
  const edge = Math.max(1, rx * 0.05);
  for (let y = y0; y < y1; y++) {
    const dy2 = (y - cy) * (y - cy) * iry2;
    const base = puff ? clamp01(floorY - y) : 1;
    // The whole cloud darkens toward its base, so puffs merge instead of each showing its own underside.
    const below = puff ? clamp01(1 - (floorY - y) / (ry * 1.8)) * 0.9 : 0;
    const pr = cr + (under[0] - cr) * below;
    const pg = cg + (under[1] - cg) * below;
    const pb = cb + (under[2] - cb) * below;
    let i = (y * width + x0) * 3;
    for (let x = x0; x < x1; x++, i += 3) {
      const d2 = (x - cx) * (x - cx) * irx2 + dy2;
      let a: number;
      if (puff) {
        if (d2 >= 1.3) continue;
        const d = Math.sqrt(d2);
        a = frame.flat ? clamp01((1 - d) * rx + 0.5) : clamp01((1 - d) * (rx / (edge * 6))) ** 1.5;
        a *= light.alpha * base;
      } else {
        if (d2 > 6.8) continue;
        a = Math.exp(-d2 * 1.6) * light.alpha;
      }
      if (a <= 0.002) continue;
      if (light.additive) {
        data[i] = data[i]! + cr * a;
        data[i + 1] = data[i + 1]! + cg * a;
        data[i + 2] = data[i + 2]! + cb * a;
      } else {
        const k = a > 1 ? 1 : a;
        data[i] = data[i]! + (pr - data[i]!) * k;
        data[i + 1] = data[i + 1]! + (pg - data[i + 1]!) * k;
        data[i + 2] = data[i + 2]! + (pb - data[i + 2]!) * k;
      }
    }
  }
}

function drawStars(canvas: Canvas, scene: Scene, frame: Frame): void {
  const { width, height, data } = canvas;
  const view = viewAt(frame, 0.02, canvas, scene.aspect);
  const [lr, lg, lb] = mix(scene.palette.light, [1, 1, 1], 0.5);
  const px = Math.max(1, height / 720);
  for (const star of scene.stars) {
    const twinkle = frame.time > 0 ? 0.65 + 0.35 * Math.sin(frame.time * 3 + star.phase * 7) : 1;
    const b = star.bright * twinkle;
    const sx = (star.u - view.u0) / view.du;
    const sy = (star.v - view.v0) / view.du;
    const radius = star.size * px;
    const reach = Math.ceil(radius * 1.5);
    const ix = Math.floor(sx);
    const iy = Math.floor(sy);
    for (let y = iy - reach; y <= iy + reach; y++) {
      if (y < 0 || y >= height) continue;
      for (let x = ix - reach; x <= ix + reach; x++) {
        if (x < 0 || x >= width) continue;
        const d2 = ((x + 0.5 - sx) ** 2 + (y + 0.5 - sy) ** 2) / (radius * radius);
        const a = b * Math.exp(-d2 * 2.2);
        if (a < 0.01) continue;
        const i = (y * width + x) * 3;
        data[i] = data[i]! + lr * a;
        data[i + 1] = data[i + 1]! + lg * a;
        data[i + 2] = data[i + 2]! + lb * a;
      }
    }
  }
}

function drawCelestial(canvas: Canvas, scene: Scene, frame: Frame): void {
  const c = scene.celestial;
  if (!c) return;
  const { width, height, data } = canvas;
  const view = viewAt(frame, 0.06, canvas, scene.aspect);
  let v = c.v;
  if (frame.bounce) v -= Math.abs(Math.sin(frame.time * Math.PI * 0.9)) * 0.05;
  else if (c.kind === "sun") v += frame.time * 0.004;
  const cx = (c.u - view.u0) / view.du;
  const cy = (v - view.v0) / view.du;
  const r = c.r / view.du;
  const light = scene.palette.light;
  const bottom: Rgb = c.kind === "synth" ? scene.palette.accents[1] : light;
  // Brighter than white before grading, so the disc stays the brightest thing even inside its own glow.
  const core: Rgb = c.kind === "moon" ? mix(light, [1, 1, 1], 0.3) : scale(mix(light, [1, 1, 1], 0.5), 1.3);
  const x0 = Math.max(0, Math.floor(cx - r - 2));
  const x1 = Math.min(width, Math.ceil(cx + r + 2));
  const y0 = Math.max(0, Math.floor(cy - r - 2));
  const y1 = Math.min(height, Math.ceil(cy + r + 2));
  const shadowX = cx + r * c.crescent * scene.lightSide * -1.1;
  const shadowY = cy - r * c.crescent * 0.3;
  for (let y = y0; y < y1; y++) {
    const ny = (y + 0.5 - cy) / r;
    let stripe = 1;
    if (c.kind === "synth" && ny > 0.05) {
      // Synthwave sun: gaps that thicken toward the bottom.
      const band = (ny - 0.05) * 7 + frame.time * 0.6 * frame.motion;
      const gap = 0.12 + ny * 0.45;
      stripe = band - Math.floor(band) < gap ? 0 : 1;
    }
    const k = c.kind === "synth" ? clamp01((ny + 1) / 2) : 0;
    const colour = c.kind === "synth" ? mix(core, bottom, k) : core;
    for (let x = x0; x < x1; x++) {
      const d = Math.hypot(x + 0.5 - cx, y + 0.5 - cy);
      let a = clamp01(r - d + 0.5) * stripe;
      if (c.crescent > 0 && a > 0) a *= 1 - clamp01(r - Math.hypot(x + 0.5 - shadowX, y + 0.5 - shadowY) + 0.5) * 0.92;
      if (frame.flat && a > 0 && r - d < Math.max(1.5, r * 0.06)) {
        a = 1;
      }
      if (a <= 0) continue;
      const edge = frame.flat && r - d < Math.max(1.5, r * 0.06) && r - d > -0.5;
      const target = edge ? scale(colour, 0.55) : colour;
      const i = (y * width + x) * 3;
      data[i] = data[i]! + (target[0] - data[i]!) * a;
      data[i + 1] = data[i + 1]! + (target[1] - data[i + 1]!) * a;
      data[i + 2] = data[i + 2]! + (target[2] - data[i + 2]!) * a;
    }
  }
}

function drawPlanet(canvas: Canvas, scene: Scene, frame: Frame): void {
  const p = scene.planet;
  if (!p) return;
  const { width, height, data } = canvas;
  const view = viewAt(frame, 0.15, canvas, scene.aspect);
  const cx = (p.u - view.u0) / view.du;
  const cy = (p.v - view.v0) / view.du;
  const r = p.r / view.du;
  const lx = -0.55 * scene.lightSide;
  const ly = -0.45;
  const lz = Math.sqrt(1 - lx * lx - ly * ly);
  const cos = Math.cos(p.tilt);
  const sin = Math.sin(p.tilt);
  const ringIn = 1.35;
  const ringOut = 2.1;
  const spin = frame.time * 0.05 * frame.motion;
  const reach = p.ring ? r * ringOut : r + 2;
  const x0 = Math.max(0, Math.floor(cx - reach));
  const x1 = Math.min(width, Math.ceil(cx + reach));
  const y0 = Math.max(0, Math.floor(cy - reach));
  const y1 = Math.min(height, Math.ceil(cy + reach));
  const [a, b] = p.colours;
  const rimColour = mix(scene.palette.light, scene.palette.accents[2], 0.5);
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const dx = (x + 0.5 - cx) / r;
      const dy = (y + 0.5 - cy) / r;
      const d2 = dx * dx + dy * dy;
      const i = (y * width + x) * 3;
      const rx = dx * cos + dy * sin;
      const ry = (-dx * sin + dy * cos) / 0.28;
      const ringD = Math.sqrt(rx * rx + ry * ry);
      const inRing = p.ring && ringD > ringIn && ringD < ringOut;
      const behind = ry < 0;
      const cover = clamp01((1 - Math.sqrt(d2)) * r + 0.5);
      if (cover > 0) {
        const nz = Math.sqrt(Math.max(0, 1 - d2));
        const lambert = Math.max(0, dx * lx + dy * ly + nz * lz);
        const lat = dy * cos - dx * sin;
        const band =
          0.5 +
          0.35 * Math.sin(lat * p.bands + Math.sin(dx * 3 + spin) * 0.8) +
          0.15 * Math.sin(lat * p.bands * 1.7 + 1);
        const base = mix(a, b, band);
        const shade = 0.06 + 0.94 * lambert;
        const fres = (1 - nz) ** 3 * lambert * 1.2;
        const k = frame.flat ? (lambert > 0.35 ? 1 : 0.55) : shade;
        const tr = base[0] * k + rimColour[0] * fres;
        const tg = base[1] * k + rimColour[1] * fres;
        const tb = base[2] * k + rimColour[2] * fres;
        const hidden = inRing && !behind ? 0 : 1;
        const alpha = cover * hidden;
        data[i] = data[i]! + (tr - data[i]!) * alpha;
        data[i + 1] = data[i + 1]! + (tg - data[i + 1]!) * alpha;
        data[i + 2] = data[i + 2]! + (tb - data[i + 2]!) * alpha;
      }
      if (inRing && (cover === 0 || !behind)) {
        const t = (ringD - ringIn) / (ringOut - ringIn);
        const alpha = (0.35 + 0.35 * Math.sin(t * 40) ** 2) * clamp01(Math.min(t, 1 - t) * 20);
        const lit = behind ? 0.7 : 1;
        data[i] = data[i]! + (b[0] * lit - data[i]!) * alpha;
        data[i + 1] = data[i + 1]! + (b[1] * lit - data[i + 1]!) * alpha;
        data[i + 2] = data[i + 2]! + (b[2] * lit - data[i + 2]!) * alpha;
      }
    }
  }
}

/** Per-column outline of one layer on screen, plus what the fill needs to know about each column. */
interface Ridge {
  y: Float32Array;
  /** Where the layer's haze starts: below the trees and roofs, so it lies level across them. */
  ground: Float32Array;
  shade: Float32Array;
  snow: Float32Array;
  building: Int32Array;
  left: Float32Array;
  top: Float32Array;
  view: View;
}

function ridgeV(layer: Layer, u: number, frame: Frame, aspect: number): number {
  let amp = layer.amp;
  if (frame.bounce) amp *= 1 + 0.09 * Math.sin(frame.time * Math.PI * 1.8 + layer.depth * 4);
  let h = fbm(u * layer.freq + layer.phase, layer.seed, layer.octaves, layer.ridged);
  if (layer.cliff) {
    // Level, slightly rough ground up to the edge, then a rocky face dropping out of the picture.
    const out = (u - layer.cliff.edge) * -layer.cliff.side;
    const drop = clamp01(out / 0.07 + 0.15 * (h - 0.5));
    return layer.base - amp * h * 0.25 + drop * drop * 0.6;
  }
  if (layer.islands) {
    // Islands rise out of the sea in a few stretches and leave open water between them.
    const island = Math.sin((u * 2.3) / Math.max(0.6, aspect) + layer.phase) * 1.6 - 0.4;
    h *= clamp01(island);
  }
  return layer.base - amp * h;
}

function addTrees(vs: Float32Array, layer: Layer, trees: Trees, view: View, frame: Frame, scene: Scene): void {
  const width = vs.length - 2;
  const uMin = view.u0 - trees.width * 2;
  const uMax = view.u0 + (width + 1) * view.du + trees.width * 2;
  for (let k = Math.floor(uMin / trees.spacing); k <= Math.ceil(uMax / trees.spacing); k++) {
    if (hash01(k, layer.seed + 1) > trees.chance) continue;
    const tu = (k + 0.15 + 0.7 * hash01(k, layer.seed + 2)) * trees.spacing;
    const th = trees.height * (0.6 + 0.7 * hash01(k, layer.seed + 3));
    const tw = trees.width * (0.8 + 0.4 * hash01(k, layer.seed + 4)) * (th / trees.height);
    const top = ridgeV(layer, tu, frame, scene.aspect) + th * 0.1 - th;
    const xa = Math.max(-1, Math.floor((tu - tw - view.u0) / view.du));
    const xb = Math.min(width, Math.ceil((tu + tw - view.u0) / view.du));
    for (let x = xa; x <= xb; x++) {
      const a = Math.abs(view.u0 + x * view.du - tu) / tw;
      let best = Infinity;
      // A pine as four tiers whose tips line up on one cone, each starting a little below the last.
      for (let tier = 0; tier < 4; tier++) {
        const reach = (tier + 1) / 4;
        if (a >= reach) continue;
        const start = tier * 0.17;
        const end = (tier + 1) * 0.22;
        const depth = top + th * (start + (a / reach) * (end - start));
        if (depth < best) best = depth;
      }
      if (best < vs[x + 1]!) vs[x + 1] = best;
    }
  }
}

function addBuildings(vs: Float32Array, ridge: Ridge, layer: Layer, b: Buildings, view: View): void {
  const width = vs.length - 2;
  const uMin = view.u0 - b.cell * 2;
  const uMax = view.u0 + (width + 1) * view.du + b.cell * 2;
  for (let k = Math.floor(uMin / b.cell); k <= Math.ceil(uMax / b.cell); k++) {
    const id = k * 7 + layer.seed;
    const w = b.cell * (0.65 + 0.6 * hash01(id, 11));
    const left = (k + 0.5) * b.cell - w / 2 + (hash01(id, 12) - 0.5) * b.cell * 0.4;
    const h = b.minHeight + (b.maxHeight - b.minHeight) * hash01(id, 13) ** 1.6;
    const top = layer.base - h;
    const spire = hash01(id, 14) < 0.18;
    const stepped = hash01(id, 15) < 0.3;
    const spireHalf = Math.max(0.05, (view.du * 1.5) / w);
    const xa = Math.max(-1, Math.floor((left - view.u0) / view.du));
    const xb = Math.min(width, Math.ceil((left + w - view.u0) / view.du));
    for (let x = xa; x <= xb; x++) {
      const u = view.u0 + x * view.du;
      if (u < left || u > left + w) continue;
      const rel = (u - left) / w;
      let v = top;
      if (stepped && (rel < 0.2 || rel > 0.8)) v = top + h * 0.12;
      if (spire && Math.abs(rel - 0.5) < spireHalf) v = top - h * 0.2;
      if (v < vs[x + 1]!) {
        vs[x + 1] = v;
        if (x >= 0 && x < width) {
          ridge.building[x] = id;
          ridge.left[x] = left;
          ridge.top[x] = top;
        }
      }
    }
  }
}

function computeRidge(canvas: Canvas, layer: Layer, frame: Frame, scene: Scene): Ridge {
  const { width } = canvas;
  const view = viewAt(frame, layer.depth, canvas, scene.aspect);
  const ridge: Ridge = {
    y: new Float32Array(width),
    ground: new Float32Array(width),
    shade: new Float32Array(width),
    snow: new Float32Array(width),
    building: new Int32Array(width).fill(-1),
    left: new Float32Array(width),
    top: new Float32Array(width),
    view,
  };
  const vs = new Float32Array(width + 2);
  for (let x = -1; x <= width; x++) vs[x + 1] = ridgeV(layer, view.u0 + x * view.du, frame, scene.aspect);
  const lift = layer.trees ? layer.trees.height * 0.8 : layer.buildings ? layer.buildings.maxHeight * 0.5 : 0;
  for (let x = 0; x < width; x++) ridge.ground[x] = (vs[x + 1]! - lift - view.v0) / view.du;

  // Light and shade follow the land's slope, averaged over a few pixels so the faces read as faces, not stripes.
  const slopes = new Float32Array(width);
  for (let x = 0; x < width; x++) slopes[x] = (vs[x + 2]! - vs[x]!) / (2 * view.du);
  const radius = Math.max(2, Math.round(width / 110));
  let sum = 0;
  for (let x = -radius; x < radius; x++) sum += slopes[Math.min(width - 1, Math.max(0, x))]!;
  for (let x = 0; x < width; x++) {
    sum += slopes[Math.min(width - 1, x + radius)]! - slopes[Math.max(0, x - radius)]!;
    const slope = sum / (2 * radius + 1);
    ridge.shade[x] = Math.max(-1, Math.min(1, -slope * scene.lightSide * 1.6)) * layer.shade;
  }

  if (layer.trees) addTrees(vs, layer, layer.trees, view, frame, scene);
  if (layer.buildings) addBuildings(vs, ridge, layer, layer.buildings, view);

  const snowSeed = layer.seed + 5;
  for (let x = 0; x < width; x++) {
    const v = vs[x + 1]!;
    ridge.y[x] = (v - view.v0) / view.du;
    if (ridge.building[x]! >= 0) ridge.shade[x] = (hash01(ridge.building[x]!, 16) - 0.5) * 0.25;
    if (layer.snowLine !== null) {
      const u = view.u0 + x * view.du;
      const line = layer.snowLine + (noise1(u * 40, snowSeed) - 0.5) * 0.035;
      ridge.snow[x] = line > v ? (line - v) / view.du : 0;
    }
  }
  return ridge;
}

function fillLayer(canvas: Canvas, scene: Scene, layer: Layer, ridge: Ridge, limit: Float32Array, frame: Frame): void {
  const { width, height, data } = canvas;
  const p = scene.palette;
  const [cr, cg, cb] = layer.colour;
  const mistColour = mix(p.skyHorizon, p.light, 0.2);
  const rimColour = p.light;
  const scalePx = height / 1000;
  const invMist = 1 / (140 * scalePx);
  const rimPx = Math.max(1.5, 5 * scalePx);
  const invShade = 1 / (320 * scalePx);
  const outline = Math.max(1.6, 3.2 * scalePx);
  const outlineColour = scale(layer.colour, 0.25);
  const snow = mix(p.light, [1, 1, 1], 0.55);
  const view = ridge.view;
  const b = layer.buildings;
  const flat = frame.flat;
  // Shade is looked up along a diagonal, so lit and shadowed faces run down from peaks and crests at an angle.
  const skew = scene.lightSide * (layer.shade > 0.3 ? 1.3 : 0.8);
  const shade = ridge.shade;
  const snowFaces = ridge.snow;
  for (let x = 0; x < width; x++) {
    const y0 = ridge.y[x]!;
    if (y0 >= height + 1) continue;
    const prev = ridge.y[x > 0 ? x - 1 : x]!;
    const next = ridge.y[x < width - 1 ? x + 1 : x]!;
    const slope = (next - prev) / 2;
    const k = Math.sqrt(1 + slope * slope);
    const start = Math.max(0, Math.floor(y0 - 0.5 * k));
    const end = Math.min(height, Math.ceil(limit[x]!));
    const ground = ridge.ground[x]!;
    const snowPx = snowFaces[x]!;
    const building = ridge.building[x]!;
    const u = view.u0 + x * view.du;
    for (let y = start; y < end; y++) {
      const dy = y + 0.5 - y0;
      let cov = dy / k + 0.5;
      if (cov <= 0) continue;
      if (cov > 1) cov = 1;
      let r = cr;
      let g = cg;
      let bl = cb;
      let sx = x + Math.round(dy * skew);
      sx = sx < 0 ? 0 : sx >= width ? width - 1 : sx;
      const sc = building >= 0 ? shade[x]! : shade[sx]!;
      if (flat) {
        if (dy / k < outline) {
          r = outlineColour[0];
          g = outlineColour[1];
          bl = outlineColour[2];
        } else if (layer.shade > 0.1 && sc !== 0) {
          const f = sc > 0 ? 1.1 : 0.88;
          r *= f;
          g *= f;
          bl *= f;
        }
      } else {
        if (dy < snowPx) {
          const f = 1 + sc * 0.6;
          r = snow[0] * f;
          g = snow[1] * f;
          bl = snow[2] * f;
        } else if (sc !== 0) {
          const fade = 1 - dy * invShade;
          if (fade > 0) {
            const f = 1 + sc * fade;
            r *= f;
            g *= f;
            bl *= f;
          }
        }
        const m = (y + 0.5 - ground) * invMist;
        const mist = (m < 0 ? 0 : m > 1 ? 1 : m) * layer.mist;
        r += (mistColour[0] - r) * mist;
        g += (mistColour[1] - g) * mist;
        bl += (mistColour[2] - bl) * mist;
        if (dy < rimPx) {
          const rim = (1 - dy / rimPx) * layer.rim;
          r += (rimColour[0] - r) * rim;
          g += (rimColour[1] - g) * rim;
          bl += (rimColour[2] - bl) * rim;
        }
      }
      if (b && building >= 0) {
        const v = view.v0 + y * view.du;
        const wx = (u - ridge.left[x]!) / (b.cell * 0.16);
        const wy = (v - ridge.top[x]!) / (b.cell * 0.2);
        if (wy > 1) {
          const fx = wx - Math.floor(wx);
          const fy = wy - Math.floor(wy);
          if (fx > 0.3 && fx < 0.72 && fy > 0.3 && fy < 0.75) {
            const cell = Math.floor(wx) * 131 + Math.floor(wy) * 7919;
            const roll = hash01(cell, building);
            if (roll < b.lit) {
              const w = b.windows[Math.floor((roll / b.lit) * b.windows.length)] ?? p.light;
              r = w[0];
              g = w[1];
              bl = w[2];
            }
          }
        }
      }
      const i = (y * width + x) * 3;
      if (cov === 1) {
        data[i] = r;
        data[i + 1] = g;
        data[i + 2] = bl;
      } else {
        data[i] = data[i]! + (r - data[i]!) * cov;
        data[i + 1] = data[i + 1]! + (g - data[i + 1]!) * cov;
        data[i + 2] = data[i + 2]! + (bl - data[i + 2]!) * cov;
      }
    }
  }
}

/** Back to front; rows that a nearer layer will cover completely are not painted at all. */
function drawLandscape(canvas: Canvas, scene: Scene, frame: Frame, front: boolean): void {
  const layers = scene.layers.filter((l) => l.front === front);
  if (layers.length === 0) return;
  const { width, height } = canvas;
  const ridges = layers.map((layer) => computeRidge(canvas, layer, frame, scene));
  const limits = layers.map(() => new Float32Array(width).fill(height));
  for (let l = layers.length - 2; l >= 0; l--) {
    const below = limits[l + 1]!;
    const nearer = ridges[l + 1]!;
    const own = limits[l]!;
    for (let x = 0; x < width; x++) own[x] = Math.min(below[x]!, Math.max(0, nearer.y[x]! + 3));
  }
  for (let l = 0; l < layers.length; l++) {
    fillLayer(canvas, scene, layers[l]!, ridges[l]!, limits[l]!, frame);
    drawSubjects(canvas, scene, frame, layers[l]!);
  }
}

function drawWater(canvas: Canvas, scene: Scene, frame: Frame): void {
  const water = scene.water;
  if (!water) return;
  const { width, height, data } = canvas;
  const view = viewAt(frame, 0.5, canvas, scene.aspect);
  const hy = Math.max(1, Math.round((water.horizon - view.v0) / view.du));
  if (hy >= height) return;
  const [dr, dg, db] = water.deep;
  const span = height - hy;
  const t = frame.time;
  const px = height / 1000;
  const c = scene.celestial;
  const sunView = viewAt(frame, 0.06, canvas, scene.aspect);
  const sunX = c ? (c.u - sunView.u0) / sunView.du : 0;
  const sunR = c ? c.r / sunView.du : 0;
  const [lr, lg, lb] = mix(scene.palette.light, [1, 1, 1], 0.4);
  const tick = Math.floor(t * 10);
  const flat = frame.flat;
  const row = new Float32Array(width * 3);
  for (let y = hy; y < height; y++) {
    const d = y - hy + 1;
    const depth = d / span;
    const src = Math.max(0, hy - 1 - Math.floor(d * 0.9));
    // Ripples: the reflection sways sideways, more so nearer the viewer.
    const shift = (Math.sin(d * 0.16 + t * 2.2) * 0.6 + Math.sin(d * 0.043 - t * 1.1) * 0.4) * (0.6 + depth * 7) * px;
    const whole = Math.floor(shift);
    const frac = shift - whole;
    const reflect = flat ? 0.45 : 0.8 - 0.4 * depth;
    const srcBase = src * width * 3;
    for (let x = 0; x < width; x++) {
      let s0 = x + whole;
      s0 = s0 < 0 ? 0 : s0 >= width ? width - 1 : s0;
      const s1 = s0 + 1 < width ? s0 + 1 : s0;
      const a = srcBase + s0 * 3;
      const b = srcBase + s1 * 3;
      const sr = data[a]! + (data[b]! - data[a]!) * frac;
      const sg = data[a + 1]! + (data[b + 1]! - data[a + 1]!) * frac;
      const sb = data[a + 2]! + (data[b + 2]! - data[a + 2]!) * frac;
      row[x * 3] = dr + (sr - dr) * reflect;
      row[x * 3 + 1] = dg + (sg - dg) * reflect;
      row[x * 3 + 2] = db + (sb - db) * reflect;
    }
    // Glints: short bright dashes on a few rows, longer toward the viewer.
    if (!flat && hash01(y, scene.seed + tick * 3) < 0.09) {
      for (let n = 0; n < 3; n++) {
        const centre = hash01(y * 3 + n, scene.seed + 17 + tick) * width;
        const half = (4 + depth * 60) * px * (0.5 + hash01(y * 3 + n, scene.seed + 19));
        const x0 = Math.max(0, Math.floor(centre - half));
        const x1 = Math.min(width, Math.ceil(centre + half));
        for (let x = x0; x < x1; x++) {
          const a = 0.12 * (1 - Math.abs(x - centre) / half);
          row[x * 3] = row[x * 3]! + (lr - row[x * 3]!) * a;
          row[x * 3 + 1] = row[x * 3 + 1]! + (lg - row[x * 3 + 1]!) * a;
          row[x * 3 + 2] = row[x * 3 + 2]! + (lb - row[x * 3 + 2]!) * a;
        }
      }
    }
    if (c && c.kind !== "synth") {
      const half = sunR * (0.7 + depth * 2.2);
      const x0 = Math.max(0, Math.floor(sunX - half));
      const x1 = Math.min(width, Math.ceil(sunX + half));
      const strength = c.kind === "moon" ? 0.6 : 0.9;
      const band = Math.sin(d * 0.7 - t * 3) * 0.5 + 0.5;
      for (let x = x0; x < x1; x++) {
        const off = Math.abs(x - sunX) / half;
        const roll = hash01(x * 7 + y * 7919, tick + scene.seed);
        if (roll > 0.35 + off * 0.55 - band * 0.15) {
          const a = strength * (1 - off) * (flat ? 1 : roll);
          row[x * 3] = row[x * 3]! + (lr - row[x * 3]!) * a;
          row[x * 3 + 1] = row[x * 3 + 1]! + (lg - row[x * 3 + 1]!) * a;
          row[x * 3 + 2] = row[x * 3 + 2]! + (lb - row[x * 3 + 2]!) * a;
        }
      }
    }
    data.set(row, y * width * 3);
  }
}

/** The synthwave floor: perspective grid lines glowing out of a dark plain. */
function drawGrid(canvas: Canvas, scene: Scene, frame: Frame): void {
  const grid = scene.grid;
  if (!grid) return;
  const { width, height, data } = canvas;
  const view = viewAt(frame, 0.6, canvas, scene.aspect);
  const hy = (grid.horizon - view.v0) / view.du;
  const [gr, gg, gb] = grid.ground;
  const [lr, lg, lb] = vivid(grid.colour, 0.8, 0.6);
  const cx = (scene.aspect / 2 - view.u0) / view.du;
  const scroll = frame.time * 0.8 * frame.motion;
  for (let y = Math.max(0, Math.floor(hy)); y < height; y++) {
    const dist = (y + 0.5 - hy) / height;
    if (dist <= 0) continue;
    const z = 0.12 / dist;
    const dz = 0.12 / (dist * dist * height);
    const hp = z + scroll;
    const hd = Math.abs(hp - Math.round(hp)) / dz;
    const horizontal = clamp01(1.3 - hd) + clamp01(1 - hd / 6) * 0.25;
    const fade = clamp01(dist * 6);
    const glow = clamp01(1 - dist * 4) * 0.5;
    const i0 = y * width * 3;
    for (let x = 0; x < width; x++) {
      const q = ((x + 0.5 - cx) / height) * z * 5;
      const dq = (z * 5) / height;
      const vd = Math.abs(q - Math.round(q)) / dq;
      const vertical = clamp01(1.3 - vd) + clamp01(1 - vd / 6) * 0.25;
      const line = Math.min(1, Math.max(horizontal, vertical)) * fade;
      const i = i0 + x * 3;
      data[i] = gr + lr * (line + glow * 0.4);
      data[i + 1] = gg + lg * (line + glow * 0.4);
      data[i + 2] = gb + lb * (line + glow * 0.4);
    }
  }
}

function drawRibbons(canvas: Canvas, scene: Scene, frame: Frame): void {
  const { width, height, data } = canvas;
  const view = viewAt(frame, 0.7, canvas, scene.aspect);
  const t = frame.time * frame.motion;
  const soft = frame.flat ? 0.8 : 2.5;
  for (const ribbon of scene.ribbons) {
    const [a, b] = ribbon.colours;
    const light = scene.palette.light;
    for (let x = 0; x < width; x++) {
      const u = view.u0 + x * view.du;
      const phase = ribbon.phase + t * ribbon.speed;
      const centre =
        ribbon.base +
        ribbon.amp * Math.sin(u * ribbon.freq + phase) +
        ribbon.amp * 0.4 * Math.sin(u * ribbon.freq * 2.3 - phase * 1.3);
      const half = ribbon.thickness * (0.55 + 0.45 * Math.sin(u * ribbon.freq * 0.7 + phase * 0.6));
      const cy = (centre - view.v0) / view.du;
      const hp = half / view.du;
      const shadow = hp * 0.35;
      const y0 = Math.max(0, Math.floor(cy - hp - soft));
      const y1 = Math.min(height, Math.ceil(cy + hp + soft + shadow * 2));
      const k = clamp01(u / scene.aspect);
      const cr = a[0] + (b[0] - a[0]) * k;
      const cg = a[1] + (b[1] - a[1]) * k;
      const cb = a[2] + (b[2] - a[2]) * k;
      for (let y = y0; y < y1; y++) {
        const off = y + 0.5 - cy;
        const i = (y * width + x) * 3;
        const shade = clamp01((hp + shadow - Math.abs(off - shadow)) / (soft * 6)) * 0.3;
        if (shade > 0) {
          data[i] = data[i]! * (1 - shade);
          data[i + 1] = data[i + 1]! * (1 - shade);
          data[i + 2] = data[i + 2]! * (1 - shade);
        }
        const alpha = clamp01((hp - Math.abs(off)) / soft) * 0.92;
        if (alpha <= 0) continue;
        const top = frame.flat ? (off < -hp * 0.45 ? 0.35 : 0) : clamp01(-off / hp) ** 2 * 0.45;
        const r = cr + (light[0] - cr) * top;
        const g = cg + (light[1] - cg) * top;
        const bb = cb + (light[2] - cb) * top;
        data[i] = data[i]! + (r - data[i]!) * alpha;
        data[i + 1] = data[i + 1]! + (g - data[i + 1]!) * alpha;
        data[i + 2] = data[i + 2]! + (bb - data[i + 2]!) * alpha;
      }
    }
  }
}

function drawDiscs(canvas: Canvas, scene: Scene, frame: Frame): void {
  const { width, height, data } = canvas;
  const view = viewAt(frame, 0.85, canvas, scene.aspect);
  const t = frame.time * frame.motion;
  for (const disc of scene.discs) {
    const pulse = 1 + 0.12 * Math.sin(t * 1.1 + disc.phase);
    const u = disc.u + 0.05 * Math.sin(t * 0.5 + disc.phase);
    const v = disc.v + 0.04 * Math.cos(t * 0.4 + disc.phase);
    const cx = (u - view.u0) / view.du;
    const cy = (v - view.v0) / view.du;
    const r = (disc.r * pulse) / view.du;
    const ringWidth = r * 0.16;
    const x0 = Math.max(0, Math.floor(cx - r - 2));
    const x1 = Math.min(width, Math.ceil(cx + r + 2));
    const y0 = Math.max(0, Math.floor(cy - r - 2));
    const y1 = Math.min(height, Math.ceil(cy + r + r * 0.3));
    const dark = mix(scale(disc.colour, 0.6), scene.palette.skyTop, 0.35);
    for (let y = y0; y < y1; y++) {
      for (let x = x0; x < x1; x++) {
        const dx = x + 0.5 - cx;
        const dy = y + 0.5 - cy;
        const d = Math.sqrt(dx * dx + dy * dy);
        let alpha = clamp01(r - d + 0.5);
        if (disc.ring) alpha *= clamp01(d - (r - ringWidth) + 0.5);
        if (alpha <= 0) continue;
        const k = frame.flat ? (dy > r * 0.2 ? 1 : 0) : clamp01((dx + dy) / (2 * r) + 0.5);
        const i = (y * width + x) * 3;
        const tr = disc.colour[0] + (dark[0] - disc.colour[0]) * k;
        const tg = disc.colour[1] + (dark[1] - disc.colour[1]) * k;
        const tb = disc.colour[2] + (dark[2] - disc.colour[2]) * k;
        const a = alpha * 0.95;
        data[i] = data[i]! + (tr - data[i]!) * a;
        data[i + 1] = data[i + 1]! + (tg - data[i + 1]!) * a;
        data[i + 2] = data[i + 2]! + (tb - data[i + 2]!) * a;
      }
    }
  }
}

/**
 * Sky and glows have no edges, so they are drawn on a grid a quarter the size and stretched: a sixteenth of the
 * work for the same picture, which is what lets a video frame of a nebula stay within budget.
 */
function drawBackdrop(canvas: Canvas, scene: Scene, frame: Frame): void {
  const { width, height, data } = canvas;
  const lw = Math.ceil(width / BACKDROP_STEP) + 1;
  const lh = Math.ceil(height / BACKDROP_STEP) + 1;
  const low: Canvas = { width: lw, height: lh, data: new Float32Array(lw * lh * 3), unit: height / BACKDROP_STEP };
  drawSky(low, scene, frame);
  const depth = scene.composition === "abstract" ? 0.3 : 0.08;
  for (const glow of scene.glows) drawLight(low, glow, frame, depth, scene, 0);

  // Bilinear stretch, one row pair at a time: each coarse row is widened once, then rows are blended.
  const wide = [new Float32Array(width * 3), new Float32Array(width * 3)] as const;
  const xs = new Int32Array(width);
  const fx = new Float32Array(width);
  for (let x = 0; x < width; x++) {
    const at = Math.max(0, (x + 0.5) / BACKDROP_STEP - 0.5);
    xs[x] = Math.min(lw - 2, Math.floor(at));
    fx[x] = Math.min(1, at - xs[x]!);
  }
  const widen = (row: number, out: Float32Array) => {
    const base = row * lw * 3;
    for (let x = 0, o = 0; x < width; x++, o += 3) {
      const i = base + xs[x]! * 3;
      const f = fx[x]!;
      out[o] = low.data[i]! + (low.data[i + 3]! - low.data[i]!) * f;
      out[o + 1] = low.data[i + 1]! + (low.data[i + 4]! - low.data[i + 1]!) * f;
      out[o + 2] = low.data[i + 2]! + (low.data[i + 5]! - low.data[i + 2]!) * f;
    }
  };
  let loaded = -1;
  for (let y = 0; y < height; y++) {
    const at = Math.max(0, (y + 0.5) / BACKDROP_STEP - 0.5);
    const row = Math.min(lh - 2, Math.floor(at));
    const f = Math.min(1, at - row);
    if (row !== loaded) {
      widen(row, wide[row % 2]!);
      widen(row + 1, wide[(row + 1) % 2]!);
      loaded = row;
    }
    const a = wide[row % 2]!;
    const b = wide[(row + 1) % 2]!;
    const o = y * width * 3;
    for (let i = 0; i < width * 3; i++) data[o + i] = a[i]! + (b[i]! - a[i]!) * f;
  }
}

/** Draws one frame of the scene into the canvas, overwriting all of it. */
export function renderScene(canvas: Canvas, scene: Scene, frame: Frame): void {
  drawBackdrop(canvas, scene, frame);
  if (scene.composition === "abstract") {
    drawRibbons(canvas, scene, frame);
    drawDiscs(canvas, scene, frame);
    drawSubjects(canvas, scene, frame, "sky");
    drawSubjects(canvas, scene, frame, "front");
    return;
  }
  drawStars(canvas, scene, frame);
  drawCelestial(canvas, scene, frame);
  drawPlanet(canvas, scene, frame);
  for (const cloud of scene.clouds) {
    drawLight(canvas, cloud, frame, 0.1, scene, frame.time * cloud.speed * frame.motion);
  }
  drawSubjects(canvas, scene, frame, "sky");
  drawLandscape(canvas, scene, frame, false);
  drawGrid(canvas, scene, frame);
  drawSubjects(canvas, scene, frame, "land");
  drawWater(canvas, scene, frame);
  drawSubjects(canvas, scene, frame, "water");
  drawLandscape(canvas, scene, frame, true);
  drawSubjects(canvas, scene, frame, "front");
}

export interface Finish {
  /** Film grain amplitude (0–1 scale); also dithers gradients so they do not band. */
  grain: number;
  grainSeed: number;
  vignette: number;
  saturation: number;
  contrast: number;
  /** Teal shadows and warm highlights, the blockbuster grade. */
  tealOrange: number;
  /** Raised blacks, a faded print. */
  lift: number;
}

export const STILL_FINISH: Finish = {
  grain: 0.03,
  grainSeed: 0,
  vignette: 0.22,
  saturation: 1.06,
  contrast: 1.04,
  tealOrange: 0,
  lift: 0,
};

/** Grades the float canvas into 8-bit RGB or RGBA. */
export function finish(canvas: Canvas, out: Uint8Array, channels: 3 | 4, f: Finish): void {
  const { width, height, data } = canvas;
  const colVig = new Float32Array(width);
  const aspect = width / height;
  for (let x = 0; x < width; x++) {
    const dx = ((x + 0.5) / width - 0.5) * 2;
    colVig[x] = dx * dx * (aspect > 1 ? 1 : aspect);
  }
  const grain = f.grain * 255;
  const seed = Math.imul(f.grainSeed + 1, 0x9e3779b1);
  for (let y = 0; y < height; y++) {
    const dy = ((y + 0.5) / height - 0.5) * 2;
    const rowVig = dy * dy * (aspect > 1 ? 1 / aspect : 1);
    let i = y * width * 3;
    let o = y * width * channels;
    for (let x = 0; x < width; x++, i += 3, o += channels) {
      let r = data[i]!;
      let g = data[i + 1]!;
      let b = data[i + 2]!;
      const lum = 0.2126 * r + 0.7152 * g + 0.0722 * b;
      r = lum + (r - lum) * f.saturation;
      g = lum + (g - lum) * f.saturation;
      b = lum + (b - lum) * f.saturation;
      if (f.tealOrange > 0) {
        const shadow = (1 - lum) * (1 - lum) * f.tealOrange;
        const high = lum * lum * f.tealOrange;
        r += -0.09 * shadow + 0.12 * high;
        g += 0.03 * shadow + 0.035 * high;
        b += 0.1 * shadow - 0.08 * high;
      }
      r = (r - 0.5) * f.contrast + 0.5;
      g = (g - 0.5) * f.contrast + 0.5;
      b = (b - 0.5) * f.contrast + 0.5;
      const vig = 1 - f.vignette * (colVig[x]! + rowVig);
      let h = Math.imul((y * width + x) ^ seed, 0x85ebca6b);
      h ^= h >>> 13;
      h = Math.imul(h, 0xc2b2ae35);
      const n = (((h >>> 16) & 0xffff) / 65536 - 0.5) * grain;
      const lift = f.lift * 255;
      const k = vig * (255 - lift);
      let R = lift + r * k + n;
      let G = lift + g * k + n;
      let B = lift + b * k + n;
      R = R < 0 ? 0 : R > 255 ? 255 : R;
      G = G < 0 ? 0 : G > 255 ? 255 : G;
      B = B < 0 ? 0 : B > 255 ? 255 : B;
      out[o] = R + 0.5;
      out[o + 1] = G + 0.5;
      out[o + 2] = B + 0.5;
      if (channels === 4) out[o + 3] = 255;
    }
  }
}

/** Where things go depends on the prompt as well as the seed, so two prompts with one seed do not share a layout. */
export function layoutSeed(prompt: string, seed: number): number {
  return hashString(prompt, seed);
}

export function seedFrom(prompt: string): number {
  return hashString(prompt, 0x1234567) & 0x7fffffff;
}
