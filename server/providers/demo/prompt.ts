/**
 * Reads a prompt the way the offline demo models understand it: which kind of picture (composition), what time of
 * day, and which colours. Nothing here is random: the same prompt, negative prompt and seed give the same reading.
 */

import { findSubjects, saysCliff, SUBJECT_BY_ID, type SubjectId } from "#server/providers/demo/subjects.ts";

export type Rgb = readonly [number, number, number];

export const COMPOSITIONS = ["mountains", "hills", "sea", "forest", "city", "cosmos", "dunes", "abstract"] as const;
export type Composition = (typeof COMPOSITIONS)[number];

export type TimeOfDay = "day" | "golden" | "night";

export interface Palette {
  skyTop: Rgb;
  skyMid: Rgb;
  skyHorizon: Rgb;
  /** The sun's or moon's colour, and of every light in the scene. */
  light: Rgb;
  /** Landscape layers, farthest first; the far ones already fade into the horizon's haze. */
  land: [Rgb, Rgb, Rgb, Rgb];
  /** Glows, nebulae, lit windows and abstract shapes. */
  accents: [Rgb, Rgb, Rgb];
}

/** Things a negative prompt can take out of the picture. */
export interface Elements {
  sun: boolean;
  moon: boolean;
  stars: boolean;
  clouds: boolean;
  water: boolean;
  trees: boolean;
  grain: boolean;
}

export interface PromptReading {
  composition: Composition;
  time: TimeOfDay;
  palette: Palette;
  elements: Elements;
  /** Synthwave: a striped sun and a glowing grid-like horizon. */
  neon: boolean;
  /** The things the prompt names that the painter can draw, in the prompt's order (at most three). */
  subjects: SubjectId[];
  /** A steep headland in the foreground, for things to stand on above the sea or a valley. */
  cliff: boolean;
  /** The colour the prompt names first, for its subject ("a red car"). */
  subjectColour: Rgb | null;
}

/** FNV-1a: a stable 32-bit hash, so a prompt always maps to the same picture on every machine. */
export function hashString(text: string, salt = 0): number {
  let h = (0x811c9dc5 ^ salt) >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** mulberry32: small, fast and good enough to place hills and stars. */
export function createRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function hex(value: string): Rgb {
  const n = Number.parseInt(value.slice(1), 16);
  return [((n >> 16) & 255) / 255, ((n >> 8) & 255) / 255, (n & 255) / 255];
}

export function mix(a: Rgb, b: Rgb, t: number): Rgb {
  return [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t];
}

export function toHsl([r, g, b]: Rgb): [number, number, number] {
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  const l = (max + min) / 2;
  if (max === min) return [0, 0, l];
  const d = max - min;
  const s = l > 0.5 ? d / (2 - max - min) : d / (max + min);
  let h: number;
  if (max === r) h = (g - b) / d + (g < b ? 6 : 0);
  else if (max === g) h = (b - r) / d + 2;
  else h = (r - g) / d + 4;
  return [h * 60, s, l];
}

export function fromHsl(h: number, s: number, l: number): Rgb {
  const hue = (((h % 360) + 360) % 360) / 360;
  const sat = Math.min(1, Math.max(0, s));
  const light = Math.min(1, Math.max(0, l));
  if (sat === 0) return [light, light, light];
  const q = light < 0.5 ? light * (1 + sat) : light + sat - light * sat;
  const p = 2 * light - q;
  const channel = (t: number) => {
    const x = t < 0 ? t + 1 : t > 1 ? t - 1 : t;
    if (x < 1 / 6) return p + (q - p) * 6 * x;
    if (x < 1 / 2) return q;
    if (x < 2 / 3) return p + (q - p) * (2 / 3 - x) * 6;
    return p;
  };
  return [channel(hue + 1 / 3), channel(hue), channel(hue - 1 / 3)];
}

function hueDistance(a: number, b: number): number {
  const d = Math.abs((((a - b) % 360) + 360) % 360);
  return Math.min(d, 360 - d);
}

/** The colour names people type, a few languages beyond English, as hue and a typical saturation and lightness. */
const COLOURS: Array<{ words: string[]; hsl: [number, number, number] }> = [
  {
    words: ["red", "crimson", "scarlet", "ruby", "rot", "rouge", "rojo", "rosso", "vermelho", "красн", "赤", "红"],
    hsl: [2, 0.78, 0.5],
  },
  { words: ["maroon", "burgundy", "wine"], hsl: [345, 0.6, 0.3] },
  { words: ["orange", "amber", "tangerine", "naranja", "laranja", "オレンジ", "橙"], hsl: [28, 0.9, 0.55] },
  { words: ["gold", "golden", "gilded", "oro", "dorado", "金"], hsl: [44, 0.85, 0.55] },
  { words: ["yellow", "lemon", "gelb", "jaune", "amarillo", "amarelo", "黄"], hsl: [54, 0.9, 0.58] },
  { words: ["lime", "chartreuse"], hsl: [88, 0.7, 0.5] },
  {
    words: ["green", "emerald", "jade", "grün", "gruen", "vert", "verde", "зелен", "緑", "绿"],
    hsl: [135, 0.55, 0.42],
  },
  { words: ["mint", "sage"], hsl: [150, 0.4, 0.7] },
  { words: ["teal"], hsl: [178, 0.6, 0.38] },
  { words: ["cyan", "turquoise", "aqua", "aquamarine"], hsl: [186, 0.75, 0.5] },
  {
    words: ["blue", "azure", "cobalt", "sapphire", "blau", "bleu", "azul", "blu", "син", "青", "蓝"],
    hsl: [214, 0.75, 0.5],
  },
  { words: ["navy"], hsl: [224, 0.6, 0.24] },
  { words: ["indigo"], hsl: [248, 0.55, 0.4] },
  { words: ["purple", "violet", "lilac", "amethyst", "lila", "violett", "morado", "roxo", "紫"], hsl: [275, 0.6, 0.5] },
  { words: ["lavender"], hsl: [265, 0.6, 0.78] },
  { words: ["magenta", "fuchsia"], hsl: [305, 0.8, 0.55] },
  { words: ["pink", "rose", "rosa", "blush", "ピンク", "粉"], hsl: [335, 0.75, 0.7] },
  { words: ["peach", "coral", "salmon"], hsl: [14, 0.85, 0.7] },
  { words: ["brown", "chocolate", "coffee", "braun", "marron", "marrón", "茶"], hsl: [24, 0.45, 0.3] },
];

/** Scene presets: hand-tuned palettes with the composition and time of day they usually go with. */
interface Mood {
  words: string[];
  /** Which mood sets the colours when a prompt names several: light and weather (0) beat seasons (1) beat places (2). */
  rank: 0 | 1 | 2;
  time: TimeOfDay;
  compositions?: Composition[];
  /** skyTop, skyMid, skyHorizon, light, land (mid tone), land (deep), accent × 3 */
  colours: [string, string, string, string, string, string, string, string, string];
  neon?: boolean;
  noSun?: boolean;
}

const MOODS: Mood[] = [
  {
    words: ["neon", "cyberpunk", "synthwave", "vaporwave", "retrowave", "80s", "arcade"],
    rank: 0,
    time: "night",
    compositions: ["city", "mountains", "abstract"],
    colours: ["#090221", "#3a0ca3", "#f72585", "#ffd166", "#3c096c", "#10002b", "#00f5d4", "#f72585", "#7b2ff7"],
    neon: true,
  },
  {
    words: [
      "galaxy",
      "cosmic",
      "cosmos",
      "nebula",
      "universe",
      "space",
      "planet",
      "astronaut",
      "weltraum",
      "espace",
      "宇宙",
    ],
    rank: 0,
    time: "night",
    compositions: ["cosmos"],
    colours: ["#02010a", "#1b1040", "#3c1e6e", "#f8f0ff", "#2a1a5e", "#0a0620", "#7b2cbf", "#e0aaff", "#4cc9f0"],
  },
  {
    words: [
      "sunset",
      "dusk",
      "evening",
      "twilight",
      "golden hour",
      "sundown",
      "sonnenuntergang",
      "coucher",
      "atardecer",
      "pôr do sol",
      "夕",
      "日落",
    ],
    rank: 0,
    time: "golden",
    colours: ["#241a4a", "#a8326e", "#ff9e5e", "#ffe3a3", "#7a3a6b", "#23122f", "#ff6f91", "#ffc75f", "#845ec2"],
  },
  {
    words: ["sunrise", "dawn", "morning", "daybreak", "aurora", "sonnenaufgang", "amanecer", "朝", "日出"],
    rank: 0,
    time: "golden",
    colours: ["#3b5b9a", "#f0a3b5", "#ffd9a0", "#fff2cc", "#6d6a9c", "#2a2a4a", "#ffb4a2", "#e5989b", "#b5838d"],
  },
  {
    words: [
      "night",
      "midnight",
      "moon",
      "moonlit",
      "starry",
      "stars",
      "nacht",
      "nuit",
      "noche",
      "noite",
      "夜",
      "월",
      "밤",
    ],
    rank: 0,
    time: "night",
    colours: ["#03061a", "#0c1a45", "#2c3e75", "#eef2ff", "#1b2550", "#060a1c", "#4361ee", "#7209b7", "#4cc9f0"],
  },
  {
    words: ["fire", "lava", "volcano", "inferno", "flame", "burning", "ember", "hell", "feuer", "fuego", "火"],
    rank: 0,
    time: "golden",
    compositions: ["mountains"],
    colours: ["#1a0505", "#6a040f", "#f48c06", "#ffba08", "#370617", "#0d0102", "#e85d04", "#dc2f02", "#ffba08"],
  },
  {
    words: [
      "ocean",
      "sea",
      "beach",
      "coast",
      "waves",
      "lake",
      "island",
      "harbor",
      "harbour",
      "meer",
      "mer",
      "mar",
      "海",
      "바다",
    ],
    rank: 2,
    time: "day",
    compositions: ["sea"],
    colours: ["#0d3b66", "#3f8fc6", "#bfe6f5", "#fffbe8", "#1f6f8b", "#0b2e4a", "#48cae4", "#90e0ef", "#00b4d8"],
  },
  {
    words: [
      "forest",
      "woods",
      "jungle",
      "pine",
      "trees",
      "rainforest",
      "wald",
      "forêt",
      "bosque",
      "floresta",
      "森",
      "林",
    ],
    rank: 2,
    time: "day",
    compositions: ["forest"],
    colours: ["#2f5d50", "#8fbf9f", "#e8f1d0", "#fff4c2", "#4a7c59", "#13291f", "#a7c957", "#6a994e", "#f2e8cf"],
  },
  {
    words: [
      "desert",
      "dune",
      "dunes",
      "sand",
      "sahara",
      "canyon",
      "wüste",
      "désert",
      "desierto",
      "deserto",
      "砂",
      "沙漠",
    ],
    rank: 2,
    time: "day",
    compositions: ["dunes"],
    colours: ["#3d7ab8", "#9ec9e2", "#f6e3c1", "#fff5d6", "#e0a86b", "#9c5a2e", "#f4a261", "#e9c46a", "#e76f51"],
  },
  {
    words: [
      "winter",
      "snow",
      "snowy",
      "ice",
      "icy",
      "frozen",
      "arctic",
      "glacier",
      "frost",
      "schnee",
      "neige",
      "nieve",
      "雪",
      "冰",
    ],
    rank: 1,
    time: "day",
    compositions: ["mountains", "forest", "hills"],
    colours: ["#5b7db1", "#b8cde6", "#eef4fb", "#ffffff", "#b5c6dd", "#4f6487", "#a2d2ff", "#e0fbfc", "#98c1d9"],
  },
  {
    words: ["autumn", "fall", "harvest", "herbst", "automne", "otoño", "outono", "秋"],
    rank: 1,
    time: "golden",
    compositions: ["forest", "hills"],
    colours: ["#4a6fa5", "#e9b384", "#fbe0b8", "#fff0d0", "#c8553d", "#4a1f12", "#f28f3b", "#c8553d", "#ffd166"],
  },
  {
    words: [
      "spring",
      "flower",
      "flowers",
      "garden",
      "bloom",
      "blossom",
      "meadow",
      "cherry",
      "frühling",
      "printemps",
      "primavera",
      "春",
      "花",
    ],
    rank: 1,
    time: "day",
    compositions: ["hills"],
    colours: ["#6fb1e8", "#bde3f5", "#fdf3e1", "#fffbe6", "#95d5b2", "#2d6a4f", "#ffafcc", "#ffc8dd", "#b7e4c7"],
  },
  {
    words: ["pastel", "dreamy", "soft", "cotton candy", "kawaii", "cute", "gentle"],
    rank: 0,
    time: "day",
    colours: ["#a9c7ff", "#e6c8f5", "#ffe3ec", "#fffaf0", "#c3b1e1", "#8a7bb8", "#ffc8dd", "#bde0fe", "#cdb4db"],
  },
  {
    words: [
      "storm",
      "stormy",
      "rain",
      "rainy",
      "fog",
      "foggy",
      "mist",
      "misty",
      "gloomy",
      "cloudy",
      "overcast",
      "moody",
    ],
    rank: 0,
    time: "day",
    colours: ["#2b2f36", "#5c6670", "#a9b1b8", "#e8ecef", "#4b555e", "#1c2126", "#8d99ae", "#adb5bd", "#6c757d"],
    noSun: true,
  },
  {
    words: ["tropical", "summer", "paradise", "palm", "sunny", "sommer", "été", "verano", "verão", "夏"],
    rank: 2,
    time: "day",
    compositions: ["sea", "hills"],
    colours: ["#0077b6", "#48cae4", "#fff3b0", "#fffbe6", "#2a9d8f", "#1b4332", "#ffb703", "#fb8500", "#06d6a0"],
  },
  {
    words: [
      "magic",
      "magical",
      "fantasy",
      "mystic",
      "mystical",
      "fairy",
      "enchanted",
      "dream",
      "ethereal",
      "celestial",
    ],
    rank: 0,
    time: "golden",
    colours: ["#240046", "#7b2cbf", "#e0aaff", "#fff0f6", "#5a189a", "#10002b", "#ff99c8", "#c77dff", "#a0c4ff"],
  },
];

const LANDS: readonly Composition[] = ["mountains", "hills", "sea", "forest", "city", "dunes"];

const COMPOSITION_WORDS: Array<{ composition: Composition; words: string[] }> = [
  {
    composition: "mountains",
    words: ["mountain", "peak", "alps", "summit", "valley", "range", "berg", "montagne", "montaña", "山"],
  },
  {
    composition: "hills",
    words: ["hill", "meadow", "field", "countryside", "prairie", "farm", "landscape", "grass", "pasture"],
  },
  {
    composition: "sea",
    words: ["ocean", "sea", "beach", "wave", "lake", "coast", "river", "water", "island", "sail", "boat", "海"],
  },
  { composition: "forest", words: ["forest", "trees", "woods", "jungle", "pine", "wald", "forêt", "bosque", "森"] },
  {
    composition: "city",
    words: [
      "city",
      "skyline",
      "urban",
      "street",
      "building",
      "tower",
      "metropolis",
      "downtown",
      "town",
      "cyberpunk",
      "stadt",
      "ville",
      "ciudad",
      "街",
      "都市",
    ],
  },
  {
    composition: "cosmos",
    words: ["space", "galaxy", "planet", "nebula", "cosmos", "cosmic", "universe", "astronaut", "orbit", "宇宙"],
  },
  { composition: "dunes", words: ["desert", "dune", "sand", "sahara", "oasis", "wüste", "désert", "desierto"] },
  {
    composition: "abstract",
    words: [
      "abstract",
      "pattern",
      "gradient",
      "shape",
      "fluid",
      "geometric",
      "wallpaper",
      "texture",
      "swirl",
      "minimal",
      "logo",
      "background",
    ],
  },
];

const ELEMENT_WORDS: Array<{ element: keyof Elements; words: string[] }> = [
  { element: "sun", words: ["sun", "sunlight", "sunshine"] },
  { element: "moon", words: ["moon"] },
  { element: "stars", words: ["star"] },
  { element: "clouds", words: ["cloud"] },
  { element: "water", words: ["water", "sea", "ocean", "lake", "reflection"] },
  { element: "trees", words: ["tree", "forest", "pine"] },
  { element: "grain", words: ["grain", "noise", "grainy", "noisy"] },
];

const SUFFIXES = "(?:s|es|y|ish|dish|ed|ing|ly|n|ny)?";
const patterns = new Map<string, RegExp>();

/**
 * Latin-script words match whole, with common endings ("red" finds "reddish" but not "bored", "sea" not "season");
 * words in scripts written without spaces, and Cyrillic stems, match anywhere.
 */
function finder(text: string): (word: string) => number {
  const lower = ` ${text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ")} `;
  return (word) => {
    if (!/^[\p{Script=Latin}\p{N} ]+$/u.test(word)) return lower.indexOf(word);
    let pattern = patterns.get(word);
    if (!pattern) {
      pattern = new RegExp(` ${word}${SUFFIXES}(?= )`, "u");
      patterns.set(word, pattern);
    }
    const match = pattern.exec(lower);
    return match ? match.index + 1 : -1;
  };
}

interface Found<T> {
  item: T;
  at: number;
}

function findAll<T extends { words: string[] }>(items: T[], find: (w: string) => number): Array<Found<T>> {
  const found: Array<Found<T>> = [];
  for (const item of items) {
    const positions = item.words.map(find).filter((at) => at >= 0);
    if (positions.length > 0) found.push({ item, at: Math.min(...positions) });
  }
  return found.sort((a, b) => a.at - b.at);
}

/** Keeps the preset's light and shade but moves its hue toward a colour the prompt names. */
function recolour(base: Rgb, hue: number, amount: number, minSaturation = 0.3): Rgb {
  const [h, s, l] = toHsl(base);
  const d = ((((hue - h) % 360) + 540) % 360) - 180;
  return fromHsl(h + d * amount, Math.max(s, minSaturation * amount), l);
}

function moodPalette(mood: Mood): Palette {
  const c = mood.colours.map(hex);
  return paletteFrom(c[0]!, c[1]!, c[2]!, c[3]!, c[4]!, c[5]!, [c[6]!, c[7]!, c[8]!]);
}

function paletteFrom(
  skyTop: Rgb,
  skyMid: Rgb,
  skyHorizon: Rgb,
  light: Rgb,
  landMid: Rgb,
  landDeep: Rgb,
  accents: [Rgb, Rgb, Rgb],
): Palette {
  const haze = [0.62, 0.4, 0.2, 0.04];
  const land = [0, 1, 2, 3].map((i) => mix(mix(landMid, landDeep, i / 3), skyHorizon, haze[i]!)) as Palette["land"];
  return { skyTop, skyMid, skyHorizon, light, land, accents };
}

/** A harmonious palette from up to three hues, for prompts that name colours but no scene, or nothing at all. */
function huePalette(hues: number[], time: TimeOfDay, random: () => number): Palette {
  const h0 = hues[0] ?? random() * 360;
  const schemes = [30, 150, 120, 180, -40, 60];
  const h1 = hues[1] ?? h0 + schemes[Math.floor(random() * schemes.length)]!;
  const h2 = hues[2] ?? (h0 + h1) / 2 + (random() < 0.5 ? 180 : 20);
  const a: [Rgb, Rgb, Rgb] = [fromHsl(h0, 0.75, 0.6), fromHsl(h1, 0.8, 0.62), fromHsl(h2, 0.7, 0.6)];
  if (time === "night") {
    return paletteFrom(
      fromHsl(h0, 0.6, 0.04),
      fromHsl(h0, 0.55, 0.14),
      fromHsl(h1, 0.5, 0.32),
      fromHsl(h1, 0.35, 0.94),
      fromHsl(h0, 0.35, 0.22),
      fromHsl(h0, 0.45, 0.06),
      a,
    );
  }
  if (time === "golden") {
    return paletteFrom(
      fromHsl(h0, 0.5, 0.22),
      fromHsl(h1, 0.6, 0.5),
      fromHsl(h2, 0.85, 0.74),
      fromHsl(h2, 1, 0.88),
      fromHsl(h1, 0.35, 0.4),
      fromHsl(h0, 0.45, 0.1),
      a,
    );
  }
  return paletteFrom(
    fromHsl(h0, 0.45, 0.42),
    fromHsl((h0 + h1) / 2, 0.55, 0.66),
    fromHsl(h1, 0.65, 0.88),
    fromHsl(h2, 0.9, 0.95),
    fromHsl(h2, 0.35, 0.5),
    fromHsl(h0, 0.45, 0.15),
    a,
  );
}

function mapPalette(palette: Palette, f: (c: Rgb) => Rgb): Palette {
  return {
    skyTop: f(palette.skyTop),
    skyMid: f(palette.skyMid),
    skyHorizon: f(palette.skyHorizon),
    light: f(palette.light),
    land: palette.land.map(f) as Palette["land"],
    accents: palette.accents.map(f) as Palette["accents"],
  };
}

/**
 * Takes a colour out of the palette by pushing every colour of a nearby hue just past it, away from the unwanted
 * hue (a red sunset loses its reds to gold and violet), keeping lightness so the picture keeps its structure.
 */
function excludeHues(palette: Palette, hues: number[]): Palette {
  if (hues.length === 0) return palette;
  const reach = 42;
  const clear = (h: number) => hues.every((x) => hueDistance(h, x) >= reach);
  return mapPalette(palette, (c) => {
    const [h, s, l] = toHsl(c);
    if (s < 0.12 || clear(h)) return c;
    const nearest = hues.reduce((a, b) => (hueDistance(h, a) <= hueDistance(h, b) ? a : b));
    const away = ((((h - nearest) % 360) + 540) % 360) - 180 >= 0 ? 1 : -1;
    for (const candidate of [nearest + away * (reach + 10), nearest - away * (reach + 10)]) {
      if (clear(candidate)) return fromHsl(candidate, s, l);
    }
    return fromHsl(h, 0, l);
  });
}

export function saturate(palette: Palette, factor: number): Palette {
  return mapPalette(palette, (c) => {
    const [h, s, l] = toHsl(c);
    return fromHsl(h, s * factor, l);
  });
}

export function readPrompt(prompt: string, negativePrompt: string | undefined, seed: number): PromptReading {
  const random = createRandom(hashString(prompt, seed));
  const find = finder(prompt);
  const findNegative = finder(negativePrompt ?? "");

  const excluded = findAll(COLOURS, findNegative).map((f) => f.item.hsl[0]);
  const colours = findAll(COLOURS, find)
    .map((f) => f.item.hsl)
    .filter(([h]) => !excluded.some((x) => hueDistance(h, x) < 10));
  const moods = findAll(MOODS, find).sort((a, b) => a.item.rank - b.item.rank || a.at - b.at);
  const mood = moods[0]?.item;

  const named = findAll(COMPOSITION_WORDS, find).map((f) => f.item.composition);
  const unwanted = new Set(findAll(COMPOSITION_WORDS, findNegative).map((f) => f.item.composition));
  let composition: Composition;
  const suggested = moods.flatMap((m) => m.item.compositions ?? []);
  const subjects = findSubjects(prompt, negativePrompt);
  const cliff = saysCliff(prompt, negativePrompt);
  // What the subject lives in comes after what the prompt says of the place: a cat in a forest stays in the forest.
  const fromSubjects = subjects.flatMap((id) => SUBJECT_BY_ID.get(id)?.suggests ?? []);
  if (cliff) fromSubjects.unshift("sea");
  const choice = [...named, ...suggested, ...fromSubjects].find((c) => !unwanted.has(c));
  if (choice) {
    composition = choice;
  } else {
    // Without a clue, the prompt picks the kind of scene and the seed varies it, as a real model would.
    // A thing needs ground to stand on: no nebula or pure abstraction for "a robot".
    const pool = COMPOSITIONS.filter((c) => !unwanted.has(c) && (subjects.length === 0 || LANDS.includes(c)));
    composition = pool[hashString(prompt, 7) % pool.length] ?? "hills";
  }

  const blackWords = ["black", "dark", "noir", "schwarz", "negro", "黒", "黑"];
  const whiteWords = ["white", "bright", "weiß", "blanc", "blanco", "白"];
  const greyWords = ["grey", "gray", "silver", "monochrome", "black and white", "grau", "gris"];
  const says = (words: string[]) => words.some((w) => find(w) >= 0);
  const refuses = (words: string[]) => words.some((w) => findNegative(w) >= 0);

  let time: TimeOfDay;
  if (mood) time = mood.time;
  else if (says(blackWords) && !refuses(blackWords)) time = "night";
  else if (composition === "cosmos") time = "night";
  else {
    const roll = hashString(prompt, 11) % 10;
    time = roll < 5 ? "day" : roll < 8 ? "golden" : "night";
  }
  if (composition === "cosmos") time = "night";

  let palette: Palette;
  const hues = colours.map(([h]) => h + (random() - 0.5) * 6);
  if (mood) {
    palette = moodPalette(mood);
    if (hues.length > 0) {
      const first = hues[0]!;
      const second = hues[1] ?? first;
      palette = {
        ...palette,
        skyMid: recolour(palette.skyMid, first, 0.6),
        skyHorizon: recolour(palette.skyHorizon, second, 0.35),
        land: palette.land.map((c, i) => recolour(c, i < 2 ? second : first, 0.45, 0.2)) as Palette["land"],
        accents: [0, 1, 2].map((i) => {
          const [h, s, l] = colours[i % colours.length]!;
          return fromHsl(hues[i % hues.length] ?? h, s, Math.min(0.7, Math.max(0.45, l)));
        }) as Palette["accents"],
      };
    }
  } else {
    // The prompt's hash picks the scheme and the seed nudges it, so seeds give siblings rather than strangers.
    const hashRandom = createRandom(hashString(prompt, 3));
    const baseHues = hues.length > 0 ? hues : [hashRandom() * 360 + (random() - 0.5) * 24];
    palette = huePalette(baseHues, time, hashRandom);
  }

  palette = excludeHues(palette, excluded);
  if (says(greyWords) && !refuses(greyWords)) palette = saturate(palette, 0.15);
  if (says(whiteWords) && !refuses(whiteWords) && time !== "night") {
    palette = mapPalette(palette, (c) => mix(c, [1, 1, 1], 0.25));
  }
  if (refuses(blackWords)) {
    palette = mapPalette(palette, (c) => {
      const [h, s, l] = toHsl(c);
      return fromHsl(h, s, 0.3 + l * 0.7);
    });
  }
  if (refuses(whiteWords)) {
    palette = mapPalette(palette, (c) => {
      const [h, s, l] = toHsl(c);
      return fromHsl(h, s, l * 0.75);
    });
  }

  const unwantedElements = new Set(findAll(ELEMENT_WORDS, findNegative).map((f) => f.item.element));
  const elements: Elements = {
    sun: !mood?.noSun && (time !== "night" || Boolean(mood?.neon)) && !unwantedElements.has("sun"),
    moon: time === "night" && !mood?.neon && !unwantedElements.has("moon"),
    stars: time === "night" && !unwantedElements.has("stars"),
    clouds: !unwantedElements.has("clouds"),
    water: !unwantedElements.has("water"),
    trees: !unwantedElements.has("trees"),
    grain: !unwantedElements.has("grain"),
  };
  if (composition === "sea" && !elements.water) composition = "hills";
  if (composition === "forest" && !elements.trees) composition = "hills";

  const first = colours[0];
  const subjectColour: Rgb | null = first
    ? fromHsl(first[0], first[1], first[2])
    : says(blackWords)
      ? [0.13, 0.12, 0.14]
      : says(whiteWords)
        ? [0.95, 0.94, 0.92]
        : null;
  return { composition, time, palette, elements, neon: Boolean(mood?.neon), subjects, cliff, subjectColour };
}
