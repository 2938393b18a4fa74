/**
 * What the offline demo can draw of a prompt's subject: the commonest things people ask for (buildings, animals,
 * people, vehicles, objects), each a small vector illustration placed into the landscape. Words are matched in the
 * ten languages of the site; the drawings are SVG, rasterised once per picture by sharp and composited by the
 * painter, so a video moves them with the land they stand on.
 */
import type { Locale } from "#common/locales.ts";
import type { Composition, Rgb, TimeOfDay } from "#server/providers/demo/prompt.ts";

export const SUBJECT_IDS = [
  "lighthouse",
  "house",
  "castle",
  "tower",
  "church",
  "windmill",
  "bridge",
  "cat",
  "dog",
  "bird",
  "fish",
  "horse",
  "person",
  "people",
  "portrait",
  "car",
  "boat",
  "plane",
  "train",
  "bicycle",
  "balloon",
  "robot",
  "tree",
  "flower",
  "cup",
  "book",
  "chair",
  "clock",
  "guitar",
] as const;
export type SubjectId = (typeof SUBJECT_IDS)[number];

/**
 * Where a subject goes: standing on the land, floating on the water, flying in the sky, standing on a table in the
 * foreground (small objects), or filling the frame from the bottom edge (a portrait).
 */
export type Placement = "ground" | "water" | "sky" | "table" | "portrait";

export interface SubjectSpec {
  id: SubjectId;
  placement: Placement;
  /** Height in picture heights, and width over height. */
  height: number;
  ratio: number;
  /** The kind of scene it goes with when the prompt names none. */
  suggests?: Composition;
  /**
   * The subject's names in each of the site's languages, for prompts written in any of them. Latin words match
   * whole, plurals included; others match anywhere, and a word found inside a longer subject word (车 in 自行车) is
   * left to the longer one.
   */
  words: Record<Locale, string[]>;
}

export const SUBJECTS: SubjectSpec[] = [
  {
    id: "lighthouse",
    placement: "ground",
    height: 0.44,
    ratio: 0.42,
    suggests: "sea",
    words: {
      en: ["lighthouse", "beacon"],
      zh: ["灯塔"],
      ru: ["маяк"],
      de: ["leuchtturm"],
      fr: ["phare"],
      ja: ["灯台"],
      ko: ["등대"],
      es: ["faro"],
      pt: ["farol"],
      tr: ["deniz feneri", "fener"],
    },
  },
  {
    id: "house",
    placement: "ground",
    height: 0.22,
    ratio: 1.25,
    suggests: "hills",
    words: {
      en: ["house", "home", "cottage", "cabin", "hut", "farmhouse"],
      zh: ["房子", "房屋", "小屋"],
      ru: ["дом", "деревн", "избушк", "хижин"],
      de: ["haus", "häuser", "häuschen", "hütte"],
      fr: ["maison", "chalet", "cabane"],
      ja: ["家", "一軒家", "小屋"],
      ko: ["집", "오두막"],
      es: ["casa", "cabaña"],
      pt: ["casa", "cabana"],
      tr: ["ev", "kulübe"],
    },
  },
  {
    id: "castle",
    placement: "ground",
    height: 0.36,
    ratio: 1.2,
    suggests: "hills",
    words: {
      en: ["castle", "palace", "fortress", "citadel"],
      zh: ["城堡", "宫殿"],
      ru: ["замок", "дворец", "крепост"],
      de: ["burg", "schloss", "festung"],
      fr: ["château", "palais", "forteresse"],
      ja: ["城", "宮殿"],
      ko: [" 성 ", "성채", "궁전"],
      es: ["castillo", "palacio"],
      pt: ["castelo", "palácio"],
      tr: ["kale", "saray"],
    },
  },
  {
    id: "tower",
    placement: "ground",
    height: 0.46,
    ratio: 0.3,
    words: {
      en: ["tower"],
      zh: ["塔"],
      ru: ["башн"],
      de: ["turm"],
      fr: ["tour"],
      ja: ["塔", "タワー"],
      ko: ["탑", "타워"],
      es: ["torre"],
      pt: ["torre"],
      tr: ["kule"],
    },
  },
  {
    id: "church",
    placement: "ground",
    height: 0.34,
    ratio: 0.8,
    suggests: "hills",
    words: {
      en: ["church", "chapel", "cathedral"],
      zh: ["教堂"],
      ru: ["церк", "собор"],
      de: ["kirche", "kapelle"],
      fr: ["église", "chapelle", "cathédrale"],
      ja: ["教会"],
      ko: ["교회", "성당"],
      es: ["iglesia", "capilla"],
      pt: ["igreja", "capela"],
      tr: ["kilise"],
    },
  },
  {
    id: "windmill",
    placement: "ground",
    height: 0.36,
    ratio: 0.8,
    suggests: "hills",
    words: {
      en: ["windmill", "mill"],
      zh: ["风车"],
      ru: ["мельниц"],
      de: ["windmühle", "mühle"],
      fr: ["moulin"],
      ja: ["風車"],
      ko: ["풍차"],
      es: ["molino"],
      pt: ["moinho"],
      tr: ["değirmen"],
    },
  },
  {
    id: "bridge",
    placement: "water",
    height: 0.2,
    ratio: 4.2,
    suggests: "sea",
    words: {
      en: ["bridge"],
      zh: ["桥"],
      ru: ["мост"],
      de: ["brücke"],
      fr: ["pont"],
      ja: ["橋"],
      ko: ["다리"],
      es: ["puente"],
      pt: ["ponte"],
      tr: ["köprü"],
    },
  },
  {
    id: "cat",
    placement: "ground",
    height: 0.17,
    ratio: 1,
    suggests: "hills",
    words: {
      en: ["cat", "kitten", "kitty"],
      zh: ["猫"],
      ru: ["кот", "кошк", "котён", "котен"],
      de: ["katze", "katzen", "kätzchen"],
      fr: ["chat", "chaton"],
      ja: ["猫", "ねこ", "ネコ"],
      ko: ["고양이"],
      es: ["gato", "gatito"],
      pt: ["gato", "gatinho"],
      tr: ["kedi"],
    },
  },
  {
    id: "dog",
    placement: "ground",
    height: 0.18,
    ratio: 1.2,
    suggests: "hills",
    words: {
      en: ["dog", "puppy", "doggy"],
      zh: ["狗"],
      ru: ["собак", "пёс", "щенок", "щенк"],
      de: ["hund", "hunde", "welpe"],
      fr: ["chien", "chiot"],
      ja: ["犬", "いぬ", "イヌ"],
      ko: ["개가", "개와", "개를", "강아지"],
      es: ["perro"],
      pt: ["cachorro", "cão"],
      tr: ["köpek"],
    },
  },
  {
    id: "bird",
    placement: "sky",
    height: 0.07,
    ratio: 1.6,
    words: {
      en: ["bird", "seagull", "gull", "eagle"],
      zh: ["鸟"],
      ru: ["птиц", "чайк", "орёл"],
      de: ["vogel", "vögel", "möwe", "adler"],
      fr: ["oiseau", "mouette", "aigle"],
      ja: ["鳥"],
      ko: ["새가", "새들", "새와", "새를", "갈매기", "독수리"],
      es: ["pájaro", "ave", "gaviota", "águila"],
      pt: ["pássaro", "ave", "gaivota", "águia"],
      tr: ["kuş", "martı", "kartal"],
    },
  },
  {
    id: "fish",
    placement: "water",
    height: 0.14,
    ratio: 1.8,
    suggests: "sea",
    words: {
      en: ["fish", "goldfish"],
      zh: ["鱼"],
      ru: ["рыб"],
      de: ["fisch"],
      fr: ["poisson"],
      ja: ["魚", "さかな"],
      ko: ["물고기"],
      es: ["pez", "peces"],
      pt: ["peixe"],
      tr: ["balık"],
    },
  },
  {
    id: "horse",
    placement: "ground",
    height: 0.28,
    ratio: 1.15,
    suggests: "hills",
    words: {
      en: ["horse", "pony", "stallion"],
      zh: ["马"],
      ru: ["лошад", "конь"],
      de: ["pferd", "pferde"],
      fr: ["cheval", "chevaux"],
      ja: ["馬", "うま", "ウマ"],
      ko: ["말이", "말과", "말을"],
      es: ["caballo"],
      pt: ["cavalo"],
      tr: ["atlar", "atı"],
    },
  },
  {
    id: "people",
    placement: "ground",
    height: 0.3,
    ratio: 1.4,
    words: {
      en: ["people", "crowd", "family", "friends", "couple"],
      zh: ["人们", "人群", "家人"],
      ru: ["люди", "толп", "семья"],
      de: ["leute", "menschen", "familie"],
      fr: ["gens", "foule", "famille"],
      ja: ["人々", "家族"],
      ko: ["사람들", "가족"],
      es: ["gente", "multitud", "familia"],
      pt: ["pessoas", "família"],
      tr: ["insanlar", "kalabalık", "aile"],
    },
  },
  {
    id: "person",
    placement: "ground",
    height: 0.32,
    ratio: 0.42,
    words: {
      en: ["person", "man", "woman", "men", "women", "girl", "boy", "child", "kid", "wanderer", "traveler", "hiker"],
      zh: ["人", "男人", "女人", "女孩", "男孩", "孩子"],
      ru: ["человек", "мужчин", "женщин", "девушк", "девочк", "мальчик", "ребён"],
      de: ["mensch", "mann", "frau", "mädchen", "junge"],
      fr: ["personne", "homme", "femme", "fille", "garçon", "enfant"],
      ja: ["人", "男", "女", "少女", "少年", "子供"],
      ko: ["사람", "남자", "여자", "소녀", "소년", "아이"],
      es: ["persona", "hombre", "mujer", "chica", "niña", "niño"],
      pt: ["pessoa", "homem", "mulher", "menina", "menino", "garota", "criança"],
      tr: ["kişi", "adam", "kadın", "kız", "çocuk", "insan"],
    },
  },
  {
    id: "portrait",
    placement: "portrait",
    height: 0.8,
    ratio: 0.9,
    words: {
      en: ["portrait", "face", "selfie", "headshot"],
      zh: ["肖像", "人像", "脸"],
      ru: ["портрет", "лицо"],
      de: ["porträt", "gesicht"],
      fr: ["portrait", "visage"],
      ja: ["ポートレート", "肖像", "顔"],
      ko: ["초상", "얼굴"],
      es: ["retrato", "rostro", "cara"],
      pt: ["retrato", "rosto"],
      tr: ["portre", "yüz"],
    },
  },
  {
    id: "car",
    placement: "ground",
    height: 0.13,
    ratio: 2.4,
    suggests: "hills",
    words: {
      en: ["car", "automobile", "truck"],
      zh: ["汽车", "车"],
      ru: ["машин", "автомобил"],
      de: ["auto", "wagen"],
      fr: ["voiture"],
      ja: ["車", "自動車", "クルマ"],
      ko: ["자동차", "차가"],
      es: ["coche", "carro"],
      pt: ["carro"],
      tr: ["araba", "otomobil"],
    },
  },
  {
    id: "boat",
    placement: "water",
    height: 0.2,
    ratio: 1.1,
    suggests: "sea",
    words: {
      en: ["boat", "ship", "sailboat", "yacht", "sail"],
      zh: ["船", "帆船"],
      ru: ["лодк", "корабл", "яхт", "парус"],
      de: ["boot", "schiff", "segel"],
      fr: ["bateau", "navire", "voilier"],
      ja: ["船", "ボート", "ヨット"],
      ko: ["배가", "배를", "보트", "요트", "선박"],
      es: ["barco", "barca", "velero"],
      pt: ["barco", "navio", "veleiro"],
      tr: ["gemi", "tekne", "yelkenli"],
    },
  },
  {
    id: "plane",
    placement: "sky",
    height: 0.13,
    ratio: 2.2,
    words: {
      en: ["airplane", "plane", "aeroplane", "jet", "aircraft"],
      zh: ["飞机"],
      ru: ["самолёт", "самолет"],
      de: ["flugzeug"],
      fr: ["avion"],
      ja: ["飛行機"],
      ko: ["비행기"],
      es: ["avión"],
      pt: ["avião"],
      tr: ["uçak"],
    },
  },
  {
    id: "train",
    placement: "ground",
    height: 0.13,
    ratio: 5.5,
    suggests: "hills",
    words: {
      en: ["train", "locomotive", "railway"],
      zh: ["火车", "列车"],
      ru: ["поезд", "паровоз"],
      de: ["zug", "eisenbahn"],
      fr: ["train", "locomotive"],
      ja: ["電車", "列車", "汽車", "機関車"],
      ko: ["기차", "열차"],
      es: ["tren"],
      pt: ["trem", "comboio"],
      tr: ["tren"],
    },
  },
  {
    id: "bicycle",
    placement: "ground",
    height: 0.14,
    ratio: 1.7,
    suggests: "hills",
    words: {
      en: ["bicycle", "bike", "cyclist"],
      zh: ["自行车"],
      ru: ["велосипед"],
      de: ["fahrrad"],
      fr: ["vélo", "bicyclette"],
      ja: ["自転車"],
      ko: ["자전거"],
      es: ["bicicleta"],
      pt: ["bicicleta"],
      tr: ["bisiklet"],
    },
  },
  {
    id: "balloon",
    placement: "sky",
    height: 0.2,
    ratio: 0.75,
    words: {
      en: ["balloon"],
      zh: ["热气球", "气球"],
      ru: ["воздушный шар", "аэростат"],
      de: ["ballon", "heißluftballon"],
      fr: ["montgolfière", "ballon"],
      ja: ["気球"],
      ko: ["열기구", "풍선"],
      es: ["globo"],
      pt: ["balão"],
      tr: ["balon"],
    },
  },
  {
    id: "robot",
    placement: "ground",
    height: 0.3,
    ratio: 0.7,
    words: {
      en: ["robot", "android"],
      zh: ["机器人"],
      ru: ["робот"],
      de: ["roboter"],
      fr: ["robot"],
      ja: ["ロボット"],
      ko: ["로봇"],
      es: ["robot"],
      pt: ["robô"],
      tr: ["robot"],
    },
  },
  {
    id: "tree",
    placement: "ground",
    height: 0.46,
    ratio: 0.85,
    suggests: "hills",
    words: {
      en: ["tree", "oak"],
      zh: ["树"],
      ru: ["дерев", "дуб"],
      de: ["baum", "bäume", "eiche"],
      fr: ["arbre", "chêne"],
      ja: ["木"],
      ko: ["나무"],
      es: ["árbol", "roble"],
      pt: ["árvore"],
      tr: ["ağaç", "meşe"],
    },
  },
  {
    id: "flower",
    placement: "table",
    height: 0.34,
    ratio: 0.8,
    words: {
      en: ["flower", "rose", "tulip", "sunflower", "bouquet", "vase"],
      zh: ["花"],
      ru: ["цветок", "цветы", "цветов", "цветами", "роза", "розы", "тюльпан"],
      de: ["blume", "blumen", "tulpe"],
      fr: ["fleur", "tulipe"],
      ja: ["花", "チューリップ"],
      ko: ["꽃", "장미"],
      es: ["flor", "tulipán"],
      pt: ["flor", "tulipa"],
      tr: ["çiçek", "gül", "lale"],
    },
  },
  {
    id: "cup",
    placement: "table",
    height: 0.22,
    ratio: 1.25,
    words: {
      en: ["cup", "mug", "coffee", "tea"],
      zh: ["杯", "咖啡", "茶"],
      ru: ["чашк", "кружк", "кофе", " чай", " чая", " чаем"],
      de: ["tasse", "kaffee", "tee"],
      fr: ["tasse", "café", "thé"],
      ja: ["カップ", "コーヒー", "紅茶", "茶"],
      ko: ["컵", "커피", "차 "],
      es: ["taza", "café", "té"],
      pt: ["xícara", "caneca", "café", "chá"],
      tr: ["fincan", "kahve", "çay", "kupa"],
    },
  },
  {
    id: "book",
    placement: "table",
    height: 0.16,
    ratio: 1.9,
    words: {
      en: ["book", "novel"],
      zh: ["书"],
      ru: ["книг"],
      de: ["buch", "bücher"],
      fr: ["livre"],
      ja: ["本を", "本が", "本の", "本と", "読書"],
      ko: ["책"],
      es: ["libro"],
      pt: ["livro"],
      tr: ["kitap"],
    },
  },
  {
    id: "chair",
    placement: "ground",
    height: 0.26,
    ratio: 0.6,
    words: {
      en: ["chair", "armchair"],
      zh: ["椅子"],
      ru: ["стул", "кресл"],
      de: ["stuhl", "sessel"],
      fr: ["chaise", "fauteuil"],
      ja: ["椅子", "イス"],
      ko: ["의자"],
      es: ["silla"],
      pt: ["cadeira"],
      tr: ["sandalye", "koltuk"],
    },
  },
  {
    id: "clock",
    placement: "table",
    height: 0.28,
    ratio: 0.85,
    words: {
      en: ["clock"],
      zh: ["钟", "时钟"],
      ru: ["часы"],
      de: ["uhr"],
      fr: ["horloge", "pendule"],
      ja: ["時計"],
      ko: ["시계"],
      es: ["reloj"],
      pt: ["relógio"],
      tr: ["saat"],
    },
  },
  {
    id: "guitar",
    placement: "table",
    height: 0.42,
    ratio: 0.42,
    words: {
      en: ["guitar"],
      zh: ["吉他"],
      ru: ["гитар"],
      de: ["gitarre"],
      fr: ["guitare"],
      ja: ["ギター"],
      ko: ["기타"],
      es: ["guitarra"],
      pt: ["guitarra", "violão"],
      tr: ["gitar"],
    },
  },
];

export const SUBJECT_BY_ID = new Map(SUBJECTS.map((s) => [s.id, s]));

/** Every language's words of a subject at once: a prompt in German may well name its subject in English. */
const ALL_WORDS = new Map(SUBJECTS.map((s) => [s.id, [...new Set(Object.values(s.words).flat())]]));

/** Words for a steep rocky headland: a scene feature rather than a thing standing in it. */
export const CLIFF_WORDS: Record<Locale, string[]> = {
  en: ["cliff", "crag", "headland"],
  zh: ["悬崖", "峭壁"],
  ru: ["утёс", "утес", "обрыв", "скал"],
  de: ["klippe", "felsen", "steilküste"],
  fr: ["falaise"],
  ja: ["崖"],
  ko: ["절벽"],
  es: ["acantilado"],
  pt: ["falésia", "penhasco"],
  tr: ["uçurum", "yalıyar"],
};
const CLIFF = Object.values(CLIFF_WORDS).flat();

const LATIN = /^[\p{Script=Latin}\p{N} ]+$/u;

/**
 * Longer words that hold a subject's word without meaning it: 城市 is a city, not a castle; 花园 a garden, not a
 * flower; который is not a cat.
 */
const NOT_SUBJECTS = ["城市", "长城", "日本", "人工", "花园", "花火", "котор", "освещ"];
const patterns = new Map<string, RegExp>();

interface Hit {
  at: number;
  end: number;
}

/** Whole Latin words (with a plural ending), anywhere for other scripts; every occurrence. */
function hits(text: string, word: string): Hit[] {
  const out: Hit[] = [];
  if (!LATIN.test(word)) {
    for (let at = text.indexOf(word); at >= 0; at = text.indexOf(word, at + 1)) out.push({ at, end: at + word.length });
    return out;
  }
  let pattern = patterns.get(word);
  if (!pattern) {
    // Plural and Turkish case endings: cats, chevaux, kediler, evi.
    pattern = new RegExp(`(?<= )${word}(?:s|es|x|ler|lar|leri|ları|i|ı|u|ü)?(?= )`, "gu");
    patterns.set(word, pattern);
  }
  for (const match of text.matchAll(pattern)) out.push({ at: match.index, end: match.index + match[0].length });
  return out;
}

function normalise(text: string): string {
  return ` ${text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ")} `;
}

/** The subjects a prompt names, in the order it names them, leaving out those its negative prompt names. */
export function findSubjects(prompt: string, negativePrompt = ""): SubjectId[] {
  const text = normalise(prompt);
  const found: Array<{ id: SubjectId | null } & Hit> = [];
  for (const word of NOT_SUBJECTS) for (const hit of hits(text, word)) found.push({ id: null, ...hit });
  for (const [id, words] of ALL_WORDS) {
    for (const word of words) for (const hit of hits(text, word)) found.push({ id, ...hit });
  }
  // A word inside a longer one of another subject belongs to the longer one: 车 in 自行车 is a bicycle, not a car.
  const kept = found.filter(
    (a) =>
      !found.some((b) => b !== a && b.id !== a.id && b.at <= a.at && b.end >= a.end && b.end - b.at > a.end - a.at),
  );
  const negative = normalise(negativePrompt);
  const unwanted = new Set(
    [...ALL_WORDS].filter(([, words]) => words.some((w) => hits(negative, w).length > 0)).map(([id]) => id),
  );
  const ids: SubjectId[] = [];
  for (const hit of kept.sort((a, b) => a.at - b.at)) {
    if (hit.id && !unwanted.has(hit.id) && !ids.includes(hit.id)) ids.push(hit.id);
  }
  // A portrait is of a person: one figure is enough.
  if (ids.includes("portrait")) return ids.filter((id) => id !== "person" && id !== "people").slice(0, 3);
  if (ids.includes("people")) return ids.filter((id) => id !== "person").slice(0, 3);
  return ids.slice(0, 3);
}

export function saysCliff(prompt: string, negativePrompt = ""): boolean {
  const text = normalise(prompt);
  const negative = normalise(negativePrompt);
  return CLIFF.some((w) => hits(text, w).length > 0) && !CLIFF.some((w) => hits(negative, w).length > 0);
}

/** Colours for a drawing under the scene's light. */
export interface Paint {
  /** A surface colour, lit by the scene's light. */
  c: (hex: string) => string;
  /** The subject's own colour: the one the prompt names, or the drawing's. */
  main: (hex: string) => string;
  /** A light source (a lamp, a lit window): bright at night, plain by day. */
  lit: (day: string, night: string) => string;
  night: boolean;
}

const toHex = (c: Rgb) =>
  `#${c
    .map((x) =>
      Math.round(Math.min(1, Math.max(0, x)) * 255)
        .toString(16)
        .padStart(2, "0"),
    )
    .join("")}`;

function parseHex(value: string): Rgb {
  const n = Number.parseInt(value.slice(1), 16);
  return [((n >> 16) & 255) / 255, ((n >> 8) & 255) / 255, (n & 255) / 255];
}

/** Night darkens and cools surfaces; golden light warms them toward the sun's colour. */
export function createPaint(time: TimeOfDay, light: Rgb, sky: Rgb, named: Rgb | null = null): Paint {
  const tone = (hex: string): string => {
    const c = parseHex(hex);
    if (time === "night") {
      const k = 0.42;
      return toHex([c[0] * k * 0.8 + sky[0] * 0.12, c[1] * k * 0.85 + sky[1] * 0.12, c[2] * k + sky[2] * 0.18]);
    }
    if (time === "golden") {
      return toHex([c[0] * (0.78 + 0.22 * light[0]), c[1] * (0.72 + 0.22 * light[1]), c[2] * (0.66 + 0.2 * light[2])]);
    }
    return hex;
  };
  return {
    c: tone,
    main: (hex) => tone(named ? toHex(named) : hex),
    lit: (day, night) => (time === "night" ? night : tone(day)),
    night: time === "night",
  };
}

const INK = "#26242c";

/** The drawing of one subject, as SVG markup in a box `ratio × 1` times 100 units, standing on its bottom edge. */
export function subjectSvg(id: SubjectId | "table", p: Paint, variant: number): string {
  const ink = p.c(INK);
  const line = `stroke="${ink}" stroke-width="1.2" stroke-linejoin="round"`;
  const win = p.lit("#3f5366", "#ffd36e");
  switch (id) {
    case "lighthouse": {
      // 42 × 100: a tapering tower with red bands, a gallery and a lamp room.
      const red = p.main(variant % 2 ? "#2f6fb5" : "#d0343a");
      const white = p.c("#f4f1ea");

      return `
        <path d="M11 100 L15 26 L27 26 L31 100 Z" fill="${white}" ${line}/>
        <path d="M11.9 83 L12.8 66 L29.2 66 L30.1 83 Z" fill="${red}"/>
        <path d="M13.6 50 L14.4 36 L27.6 36 L28.4 50 Z" fill="${red}"/>
        <path d="M11 100 L15 26 L27 26 L31 100 Z" fill="none" ${line}/>
        <rect x="17.5" y="86" width="7" height="14" rx="3.5" fill="${p.c("#5a3b2a")}" ${line}/>
        <rect x="19" y="55" width="4" height="6" fill="${win}"/>
        <rect x="12" y="23" width="18" height="3.5" fill="${p.c("#3a3a44")}" ${line}/>
        <rect x="15.5" y="12" width="11" height="11" fill="${p.lit("#fff6d0", "#fff0a0")}" ${line}/>
        <path d="M15.5 12 L21 5 L26.5 12 Z" fill="${red}" ${line}/>
        <circle cx="21" cy="4.6" r="1.3" fill="${ink}"/>`;
    }
    case "house": {
      // 125 × 100
      const wall = p.c(["#f1e3c8", "#e8c6a0", "#dfe6ee"][variant % 3]!);
      const roof = p.main(["#b5452f", "#5b4a7a", "#3b6e8f"][variant % 3]!);
      return `
        <rect x="88" y="22" width="10" height="26" fill="${p.c("#8a5a44")}" ${line}/>
        <rect x="14" y="50" width="97" height="50" fill="${wall}" ${line}/>
        <path d="M4 54 L62.5 8 L121 54 Z" fill="${roof}" ${line}/>
        <rect x="53" y="68" width="19" height="32" fill="${p.c("#6b4430")}" ${line}/>
        <circle cx="67.5" cy="85" r="1.4" fill="${p.c("#e0c060")}"/>
        <rect x="24" y="62" width="20" height="18" fill="${win}" ${line}/>
        <rect x="81" y="62" width="20" height="18" fill="${win}" ${line}/>
        <path d="M34 62 V80 M24 71 H44 M91 62 V80 M81 71 H101" stroke="${wall}" stroke-width="2"/>
        <circle cx="62.5" cy="34" r="6" fill="${win}" ${line}/>`;
    }
    case "castle": {
      // 120 × 100
      const stone = p.c(variant % 2 ? "#cfc6b8" : "#b9b3aa");
      const dark = p.c("#8f877c");
      const roof = p.main(variant % 2 ? "#4a5fa8" : "#a8413a");
      const merlons = (x: number, y: number, w: number, n: number) =>
        Array.from({ length: n }, (_, i) => {
          const step = w / n;
          return `<rect x="${x + i * step + step * 0.15}" y="${y - 5}" width="${step * 0.7}" height="5" fill="${stone}" ${line}/>`;
        }).join("");
      const tower = (x: number, top: number, w: number) =>
        `<rect x="${x}" y="${top}" width="${w}" height="${100 - top}" fill="${stone}" ${line}/>
         <path d="M${x - 2} ${top} L${x + w / 2} ${top - 22} L${x + w + 2} ${top} Z" fill="${roof}" ${line}/>
         <rect x="${x + w / 2 - 2.5}" y="${top + 10}" width="5" height="9" rx="2.5" fill="${win}" ${line}/>`;
      return `
        <rect x="20" y="46" width="80" height="54" fill="${stone}" ${line}/>
        ${merlons(20, 46, 80, 7)}
        <rect x="44" y="22" width="32" height="30" fill="${stone}" ${line}/>
        ${merlons(44, 22, 32, 4)}
        <path d="M75 22 V6 L88 10 L75 14" fill="${p.c("#d84a3a")}" stroke="${ink}" stroke-width="1"/>
        ${tower(4, 36, 20)}
        ${tower(96, 36, 20)}
        <path d="M50 100 V80 A10 10 0 0 1 70 80 V100 Z" fill="${p.c("#4a3326")}" ${line}/>
        <rect x="55" y="30" width="10" height="12" rx="5" fill="${win}" ${line}/>
        <rect x="32" y="62" width="6" height="10" rx="3" fill="${win}" ${line}/>
        <rect x="82" y="62" width="6" height="10" rx="3" fill="${win}" ${line}/>
        <path d="M20 70 H100" stroke="${dark}" stroke-width="0.8" opacity="0.6"/>`;
    }
    case "tower": {
      // 30 × 100: a stone tower with a clock and a pointed roof.
      const stone = p.c("#c9b79c");
      return `
        <rect x="5" y="30" width="20" height="70" fill="${stone}" ${line}/>
        <rect x="3" y="26" width="24" height="5" fill="${p.c("#a8957a")}" ${line}/>
        <path d="M4 26 L15 2 L26 26 Z" fill="${p.c("#4b5d73")}" ${line}/>
        <circle cx="15" cy="40" r="5.5" fill="${p.c("#f6f0e0")}" ${line}/>
        <path d="M15 40 V36.5 M15 40 L17.5 41.5" stroke="${ink}" stroke-width="1"/>
        <rect x="12" y="54" width="6" height="10" rx="3" fill="${win}" ${line}/>
        <rect x="12" y="72" width="6" height="10" rx="3" fill="${win}" ${line}/>
        <path d="M11 100 V92 A4 4 0 0 1 19 92 V100 Z" fill="${p.c("#5a3b2a")}" ${line}/>`;
    }
    case "church": {
      // 80 × 100
      const wall = p.c("#efe6d6");
      const roof = p.c("#7a3e36");
      return `
        <rect x="30" y="58" width="46" height="42" fill="${wall}" ${line}/>
        <path d="M27 60 L53 38 L79 60 Z" fill="${roof}" ${line}/>
        <rect x="8" y="34" width="24" height="66" fill="${wall}" ${line}/>
        <path d="M5 36 L20 4 L35 36 Z" fill="${roof}" ${line}/>
        <path d="M20 4 V-4 M16.5 -0.5 H23.5" stroke="${ink}" stroke-width="1.6"/>
        <path d="M14 100 V86 A6 6 0 0 1 26 86 V100 Z" fill="${p.c("#5a3b2a")}" ${line}/>
        <rect x="16" y="46" width="8" height="13" rx="4" fill="${win}" ${line}/>
        <rect x="41" y="70" width="8" height="14" rx="4" fill="${win}" ${line}/>
        <rect x="57" y="70" width="8" height="14" rx="4" fill="${win}" ${line}/>
        <circle cx="53" cy="51" r="4" fill="${win}" ${line}/>`;
    }
    case "windmill": {
      // 80 × 100: a tower mill with four sails.
      const body = p.c("#e9dcc3");
      const sail = p.c("#f7f3ea");
      const arm = (angle: number) =>
        `<g transform="rotate(${angle} 40 30)"><rect x="38.5" y="-8" width="3" height="38" fill="${p.c("#6b4a32")}"/>
          <rect x="41.5" y="-6" width="9" height="30" fill="${sail}" ${line}/>
          <path d="M41.5 0 H50.5 M41.5 8 H50.5 M41.5 16 H50.5" stroke="${ink}" stroke-width="0.6"/></g>`;
      return `
        <path d="M26 100 L30 34 L50 34 L54 100 Z" fill="${body}" ${line}/>
        <path d="M27 36 L40 18 L53 36 Z" fill="${p.c("#7a4a3a")}" ${line}/>
        <path d="M36 100 V88 A4 4 0 0 1 44 88 V100 Z" fill="${p.c("#5a3b2a")}" ${line}/>
        <rect x="37" y="56" width="6" height="8" fill="${win}" ${line}/>
        ${[20, 110, 200, 290].map(arm).join("")}
        <circle cx="40" cy="30" r="2.6" fill="${ink}"/>`;
    }
    case "bridge": {
      // 420 × 100: a stone bridge of arches standing in water.
      const stone = p.c("#b8a58a");
      const arches = [0, 1, 2, 3, 4]
        .map((i) => {
          const x = 10 + i * 80;
          return `<path d="M${x + 12} 100 V66 A28 28 0 0 1 ${x + 68} 66 V100 Z" fill="${p.c("#3d4c5a")}" opacity="0.9"/>`;
        })
        .join("");
      return `
        <rect x="0" y="38" width="420" height="62" fill="${stone}" ${line}/>
        ${arches}
        <rect x="-4" y="30" width="428" height="9" fill="${p.c("#a08c70")}" ${line}/>
        ${Array.from({ length: 22 }, (_, i) => `<rect x="${2 + i * 19.4}" y="20" width="3" height="10" fill="${p.c("#a08c70")}"/>`).join("")}
        <rect x="-4" y="18" width="428" height="3" fill="${p.c("#a08c70")}"/>`;
    }
    case "cat": {
      // 100 × 100: a sitting cat seen from the side, its tail curled round.
      const fur = p.main(["#e08a3c", "#6b6b72", "#2f2c30", "#f2efe8"][variant % 4]!);
      const pale = p.c("#f7eee0");
      return `
        <path d="M70 96 C96 96 98 70 86 66" fill="none" stroke="${ink}" stroke-width="9" stroke-linecap="round"/>
        <path d="M70 96 C96 96 98 70 86 66" fill="none" stroke="${fur}" stroke-width="6.6" stroke-linecap="round"/>
        <path d="M22 100 C16 70 26 46 46 44 C66 42 78 64 78 100 Z" fill="${fur}" ${line}/>
        <path d="M36 100 C34 84 38 72 46 70 C52 72 56 84 54 100 Z" fill="${pale}" opacity="0.85"/>
        <ellipse cx="44" cy="34" rx="20" ry="17" fill="${fur}" ${line}/>
        <path d="M27 26 L26 6 L40 19 Z M61 26 L62 6 L48 19 Z" fill="${fur}" ${line}/>
        <path d="M29.5 20 L29 11 L36 18 Z M58.5 20 L59 11 L52 18 Z" fill="${p.c("#f0a5a5")}"/>
        <ellipse cx="37" cy="32" rx="3.2" ry="4.2" fill="${p.lit("#9bc44a", "#d8f06a")}" ${line}/>
        <ellipse cx="51" cy="32" rx="3.2" ry="4.2" fill="${p.lit("#9bc44a", "#d8f06a")}" ${line}/>
        <ellipse cx="37" cy="32" rx="1" ry="3" fill="${ink}"/><ellipse cx="51" cy="32" rx="1" ry="3" fill="${ink}"/>
        <path d="M42 40 L46 40 L44 42.5 Z" fill="${p.c("#d9777f")}"/>
        <path d="M44 42.5 V45 M44 45 C41 47 39 46 38 45 M44 45 C47 47 49 46 50 45" stroke="${ink}" stroke-width="0.9" fill="none"/>
        <path d="M34 42 L18 40 M34 44 L19 46 M54 42 L70 40 M54 44 L69 46" stroke="${ink}" stroke-width="0.6"/>`;
    }
    case "dog": {
      // 120 × 100: a standing dog, side view, facing left.
      const fur = p.main(["#c98a4a", "#efe2c8", "#3a3132", "#a05a2c"][variant % 4]!);
      const ear = p.c(["#7a4a24", "#b08a5a", "#1f1a1b", "#6a3616"][variant % 4]!);
      return `
        <path d="M96 50 C108 40 112 30 108 24" fill="none" stroke="${ink}" stroke-width="7" stroke-linecap="round"/>
        <path d="M96 50 C108 40 112 30 108 24" fill="none" stroke="${fur}" stroke-width="4.6" stroke-linecap="round"/>
        <rect x="34" y="62" width="9" height="38" rx="4" fill="${fur}" ${line}/>
        <rect x="84" y="62" width="9" height="38" rx="4" fill="${fur}" ${line}/>
        <rect x="44" y="64" width="9" height="36" rx="4" fill="${ear}" ${line}/>
        <rect x="74" y="64" width="9" height="36" rx="4" fill="${ear}" ${line}/>
        <path d="M30 46 C30 38 40 36 60 38 C84 38 100 40 100 54 C100 68 84 72 60 70 C40 70 30 64 30 46 Z" fill="${fur}" ${line}/>
        <path d="M22 20 C34 12 46 18 44 34 C44 46 34 50 24 48 L8 46 C2 45 2 36 8 34 L18 32 Z" fill="${fur}" ${line}/>
        <path d="M30 16 C40 16 44 22 42 40 C36 38 30 30 30 16 Z" fill="${ear}" ${line}/>
        <ellipse cx="6" cy="37" rx="3.6" ry="3" fill="${ink}"/>
        <circle cx="22" cy="28" r="2.4" fill="${ink}"/>
        <path d="M8 44 C12 48 18 47 22 44" stroke="${ink}" stroke-width="1" fill="none"/>
        <path d="M40 44 C44 48 44 52 40 56" stroke="${p.c("#c0392b")}" stroke-width="3" fill="none"/>`;
    }
    case "bird": {
      // 160 × 100: a gull gliding, wings bent.
      const body = p.main(variant % 2 ? "#f4f4f2" : "#5b5f6a");
      return `
        <path d="M80 56 C60 30 34 22 4 28 C30 34 50 44 66 62 Z" fill="${body}" ${line}/>
        <path d="M80 56 C100 30 126 22 156 28 C130 34 110 44 94 62 Z" fill="${body}" ${line}/>
        <ellipse cx="80" cy="62" rx="18" ry="8" fill="${body}" ${line}/>
        <circle cx="96" cy="58" r="6" fill="${body}" ${line}/>
        <path d="M101 57 L110 59 L101 61 Z" fill="${p.c("#f0b429")}" ${line}/>
        <path d="M62 62 L52 58 L54 66 Z" fill="${body}" ${line}/>`;
    }
    case "fish": {
      // 180 × 100: a fish leaping from the water, tail down, with splashes.
      const scales = p.main(["#f08a24", "#3f8fcf", "#e4b63a"][variant % 3]!);
      const belly = p.c("#fbe7c6");
      return `
        <g transform="rotate(-18 90 50)">
        <path d="M150 50 L176 26 L170 50 L176 74 Z" fill="${scales}" ${line}/>
        <path d="M20 50 C40 18 110 14 152 50 C110 86 40 82 20 50 Z" fill="${scales}" ${line}/>
        <path d="M30 56 C60 76 110 74 146 54 C110 66 60 66 30 56 Z" fill="${belly}" opacity="0.8"/>
        <path d="M80 22 C90 8 110 10 118 26 Z" fill="${scales}" ${line}/>
        <path d="M62 36 C70 46 70 56 62 66" stroke="${ink}" stroke-width="1.2" fill="none"/>
        <circle cx="40" cy="44" r="5" fill="#fff" ${line}/><circle cx="39" cy="44" r="2.4" fill="${ink}"/>
        <path d="M22 52 C26 54 30 54 32 52" stroke="${ink}" stroke-width="1" fill="none"/>
        </g>
        <path d="M110 98 C116 86 124 86 130 98 M140 98 C146 90 150 90 154 98" stroke="${p.c("#e8f6ff")}" stroke-width="3" fill="none" stroke-linecap="round"/>`;
    }
    case "horse": {
      // 115 × 100: a standing horse facing left.
      const coat = p.main(["#8a5330", "#3a2a22", "#e9e4da", "#b07a48"][variant % 4]!);
      const mane = p.c(["#2a1a12", "#15100d", "#a8a098", "#4a2a16"][variant % 4]!);
      const leg = (
        x: number,
        y: number,
      ) => `<rect x="${x}" y="${y}" width="7" height="${100 - y}" rx="3" fill="${coat}" ${line}/>
        <rect x="${x - 0.5}" y="95" width="8" height="5" fill="${ink}"/>`;
      return `
        <path d="M96 44 C110 48 112 66 106 80 C104 66 100 56 94 52 Z" fill="${mane}" ${line}/>
        ${leg(30, 58)}${leg(86, 58)}${leg(40, 60)}${leg(76, 60)}
        <path d="M26 46 C26 36 40 32 62 34 C84 34 98 38 98 52 C98 66 84 68 62 66 C40 66 26 62 26 46 Z" fill="${coat}" ${line}/>
        <path d="M36 44 C30 30 24 16 18 8 C12 10 4 22 2 28 C2 32 6 34 10 32 L18 26 C22 36 26 46 32 54 Z" fill="${coat}" ${line}/>
        <path d="M18 8 L20 0 L24 9 Z" fill="${coat}" ${line}/>
        <path d="M22 10 C28 20 34 32 40 42 L44 40 C38 28 30 14 24 6 Z" fill="${mane}"/>
        <circle cx="13" cy="16" r="1.8" fill="${ink}"/>
        <circle cx="4.5" cy="28" r="1" fill="${ink}"/>`;
    }
    case "person":
    case "people": {
      const figure = (x: number, s: number, shirt: string, hair: string, dress: boolean) => {
        const skin = p.c(["#f1c7a5", "#c98e62", "#8d5a3b", "#e8b48c"][(variant + Math.round(x)) % 4]!);
        const trousers = p.c("#34405a");
        const body = dress
          ? `<path d="M${x - 8 * s} ${30 * s + 100 - 100 * s} L${x + 8 * s} ${30 * s + 100 - 100 * s} L${x + 13 * s} ${76 * s + 100 - 100 * s} L${x - 13 * s} ${76 * s + 100 - 100 * s} Z" fill="${shirt}" ${line}/>`
          : `<rect x="${x - 8.5 * s}" y="${29 * s + 100 - 100 * s}" width="${17 * s}" height="${34 * s}" rx="${5 * s}" fill="${shirt}" ${line}/>`;
        const top = 100 - 100 * s;
        return `
          <rect x="${x - 7 * s}" y="${60 * s + top}" width="${6 * s}" height="${40 * s}" rx="${2.5 * s}" fill="${trousers}" ${line}/>
          <rect x="${x + 1 * s}" y="${60 * s + top}" width="${6 * s}" height="${40 * s}" rx="${2.5 * s}" fill="${trousers}" ${line}/>
          <rect x="${x - 13 * s}" y="${31 * s + top}" width="${5.5 * s}" height="${30 * s}" rx="${2.7 * s}" fill="${shirt}" ${line}/>
          <rect x="${x + 7.5 * s}" y="${31 * s + top}" width="${5.5 * s}" height="${30 * s}" rx="${2.7 * s}" fill="${shirt}" ${line}/>
          ${body}
          <circle cx="${x}" cy="${16 * s + top}" r="${10.5 * s}" fill="${skin}" ${line}/>
          <path d="M${x - 10.5 * s} ${15 * s + top} C${x - 10 * s} ${2 * s + top} ${x + 10 * s} ${2 * s + top} ${x + 10.5 * s} ${15 * s + top} C${x + 6 * s} ${9 * s + top} ${x - 6 * s} ${9 * s + top} ${x - 10.5 * s} ${15 * s + top} Z" fill="${hair}" ${line}/>`;
      };
      const shirts = ["#d0443a", "#2f7fb8", "#e8b63a", "#3f9a6a", "#8a4fb0"].map(p.c);
      const hairs = ["#2a1c14", "#6a3b1e", "#c99a4a", "#101010"].map(p.c);
      if (id === "person")
        return figure(
          21,
          1,
          p.main(["#d0443a", "#2f7fb8", "#e8b63a", "#3f9a6a", "#8a4fb0"][variant % 5]!),
          hairs[variant % 4]!,
          variant % 2 === 1,
        );
      // 140 × 100: three figures of different heights.
      return (
        figure(28, 0.95, shirts[variant % 5]!, hairs[0]!, false) +
        figure(112, 0.9, shirts[(variant + 2) % 5]!, hairs[2]!, true) +
        figure(70, 0.62, shirts[(variant + 1) % 5]!, hairs[1]!, false)
      );
    }
    case "portrait": {
      // 90 × 100: head and shoulders, filling the frame from the bottom.
      const skin = p.c(["#f1c7a5", "#c98e62", "#8d5a3b", "#e8b48c"][variant % 4]!);
      const hair = p.c(["#2a1c14", "#6a3b1e", "#c99a4a", "#101010"][variant % 4]!);
      const coat = p.main(["#2f4f7a", "#7a2f3f", "#2f6a4f", "#4a4a52"][variant % 4]!);
      return `
        <path d="M2 100 C4 78 18 70 45 68 C72 70 86 78 88 100 Z" fill="${coat}" ${line}/>
        <path d="M36 62 H54 V74 C50 78 40 78 36 74 Z" fill="${skin}" ${line}/>
        <path d="M45 72 L38 100 M45 72 L52 100" stroke="${p.c("#f4f1ea")}" stroke-width="3"/>
        <path d="M21 38 C17 66 30 82 45 82 C60 82 73 66 69 38 C66 18 24 18 21 38 Z" fill="${hair}" ${line}/>
        <ellipse cx="45" cy="42" rx="18" ry="22" fill="${skin}" ${line}/>
        <path d="M26 36 C28 16 62 14 64 36 C58 26 40 22 26 36 Z" fill="${hair}" ${line}/>
        <ellipse cx="38" cy="42" rx="2.2" ry="2.6" fill="${ink}"/><ellipse cx="52" cy="42" rx="2.2" ry="2.6" fill="${ink}"/>
        <path d="M34 36 C36 35 40 35 41 36 M49 36 C50 35 54 35 56 36" stroke="${ink}" stroke-width="1.1" fill="none"/>
        <path d="M45 44 C44 49 43 51 46 51" stroke="${ink}" stroke-width="0.9" fill="none"/>
        <path d="M39 56 C43 59 47 59 51 56" stroke="${p.c("#b0504a")}" stroke-width="1.6" fill="none" stroke-linecap="round"/>
        <ellipse cx="32" cy="50" rx="3.5" ry="2" fill="${p.c("#e89a8a")}" opacity="0.5"/>
        <ellipse cx="58" cy="50" rx="3.5" ry="2" fill="${p.c("#e89a8a")}" opacity="0.5"/>`;
    }
    case "car": {
      // 240 × 100: a small car facing left.
      const paint = p.main(["#d0343a", "#2f6fb5", "#f0c030", "#2f8a5a"][variant % 4]!);
      const glass = p.lit("#bcd7e8", "#4a5a78");
      const wheel = (x: number) =>
        `<circle cx="${x}" cy="80" r="19" fill="${p.c("#222228")}" ${line}/><circle cx="${x}" cy="80" r="8" fill="${p.c("#c8ccd2")}"/>`;
      return `
        <path d="M8 76 C6 60 12 52 30 50 L62 46 L88 18 C92 14 96 12 104 12 L166 12 C176 12 182 16 188 24 L210 48 C228 50 236 58 234 76 Z" fill="${paint}" ${line}/>
        <path d="M72 48 L94 22 C96 20 98 19 104 19 L128 19 L128 48 Z" fill="${glass}" ${line}/>
        <path d="M136 48 L136 19 L164 19 C170 19 174 21 178 26 L196 48 Z" fill="${glass}" ${line}/>
        <path d="M132 50 V76" stroke="${ink}" stroke-width="1.2"/>
        <rect x="112" y="56" width="12" height="3" rx="1.5" fill="${ink}"/>
        <ellipse cx="14" cy="60" rx="5" ry="4" fill="${p.lit("#fff3c0", "#fff6b0")}" ${line}/>
        <rect x="226" y="58" width="7" height="6" fill="${p.lit("#e84a3a", "#ff5a3a")}"/>
        ${wheel(60)}${wheel(186)}`;
    }
    case "boat": {
      // 110 × 100: a sailboat.
      const hull = p.main(["#f4f1ea", "#2f4f7a", "#b5452f"][variant % 3]!);
      const sail = p.c("#fbf8f0");
      return `
        <rect x="53" y="4" width="3" height="76" fill="${p.c("#6b4a32")}"/>
        <path d="M58 8 L58 72 L100 72 Z" fill="${sail}" ${line}/>
        <path d="M51 16 L51 72 L16 72 Z" fill="${p.c(variant % 2 ? "#f0c030" : "#fbf8f0")}" ${line}/>
        <path d="M56 4 L70 8 L56 12 Z" fill="${p.c("#d0343a")}"/>
        <path d="M2 76 L108 76 L94 96 L16 96 Z" fill="${hull}" ${line}/>
        <path d="M6 82 L104 82" stroke="${p.c("#d0343a")}" stroke-width="2.4"/>`;
    }
    case "plane": {
      // 220 × 100: an airliner seen from the side, heading left.
      const body = p.c("#eef1f5");
      return `
        <path d="M184 50 L206 12 L220 12 L210 52 Z" fill="${p.main("#2f6fb5")}" ${line}/>
        <path d="M10 50 C10 40 24 36 40 36 L190 38 C204 40 210 46 210 52 C210 60 200 62 186 62 L40 64 C22 64 10 60 10 50 Z" fill="${body}" ${line}/>
        <path d="M18 44 C20 40 26 38 32 38 L32 46 Z" fill="${p.c("#3a4a5c")}"/>
        ${Array.from({ length: 12 }, (_, i) => `<circle cx="${48 + i * 11}" cy="46" r="2.4" fill="${p.c("#3a4a5c")}"/>`).join("")}
        <path d="M86 56 L130 56 L96 92 L80 92 Z" fill="${p.c("#c9d2dc")}" ${line}/>
        <path d="M180 44 L196 44 L212 30 L204 30 Z" fill="${p.c("#c9d2dc")}" ${line}/>
        <path d="M20 56 C80 58 150 58 204 56" stroke="${p.c("#2f6fb5")}" stroke-width="2.4" fill="none"/>`;
    }
    case "train": {
      // 550 × 100: a locomotive pulling three carriages, on rails.
      const loco = p.main(variant % 2 ? "#2f5f8a" : "#b5352f");
      const car = p.c(variant % 2 ? "#3f8a6a" : "#d9a441");
      const wheels = (x: number, w: number) =>
        [x + 16, x + w - 16].map((c) => `<circle cx="${c}" cy="88" r="8" fill="${p.c("#2a2a30")}" ${line}/>`).join("");
      const carriage = (x: number) => `
        <rect x="${x}" y="30" width="118" height="54" rx="6" fill="${car}" ${line}/>
        <rect x="${x - 2}" y="26" width="122" height="7" rx="3" fill="${p.c("#4a4a52")}" ${line}/>
        ${[0, 1, 2, 3].map((i) => `<rect x="${x + 10 + i * 27}" y="40" width="18" height="16" rx="2" fill="${win}" ${line}/>`).join("")}
        ${wheels(x, 118)}`;
      return `
        <rect x="0" y="96" width="550" height="4" fill="${p.c("#5a5048")}"/>
        <path d="M10 84 L10 44 C10 36 16 32 24 32 L80 32 L80 14 L124 14 L124 84 Z" fill="${loco}" ${line}/>
        <rect x="28" y="8" width="12" height="24" fill="${p.c("#2a2a30")}" ${line}/>
        <rect x="90" y="22" width="26" height="20" rx="2" fill="${win}" ${line}/>
        <circle cx="12" cy="56" r="5" fill="${p.lit("#fff3c0", "#fff6b0")}" ${line}/>
        <path d="M4 84 L10 70 L10 84 Z" fill="${p.c("#4a4a52")}"/>
        ${wheels(10, 114)}<circle cx="66" cy="86" r="10" fill="${p.c("#2a2a30")}" ${line}/>
        ${carriage(134)}${carriage(278)}${carriage(422)}
        <path d="M0 98 H550" stroke="${ink}" stroke-width="1.5"/>`;
    }
    case "bicycle": {
      // 170 × 100
      const frame = p.main(["#d0343a", "#2f6fb5", "#2f8a5a"][variant % 3]!);
      return `
        <circle cx="38" cy="68" r="30" fill="none" stroke="${ink}" stroke-width="4"/>
        <circle cx="132" cy="68" r="30" fill="none" stroke="${ink}" stroke-width="4"/>
        <circle cx="38" cy="68" r="3" fill="${ink}"/><circle cx="132" cy="68" r="3" fill="${ink}"/>
        <path d="M38 68 L70 28 L120 28 L84 68 Z M84 68 L66 20 M120 28 L132 68 M116 14 L122 28" fill="none" stroke="${frame}" stroke-width="4.5" stroke-linejoin="round" stroke-linecap="round"/>
        <path d="M58 18 H76" stroke="${ink}" stroke-width="5" stroke-linecap="round"/>
        <path d="M108 12 C112 10 118 10 124 14" stroke="${ink}" stroke-width="4" fill="none" stroke-linecap="round"/>
        <circle cx="84" cy="68" r="6" fill="none" stroke="${ink}" stroke-width="2.5"/>`;
    }
    case "balloon": {
      // 75 × 100: a hot-air balloon.
      const a = p.main(["#d0343a", "#2f6fb5", "#8a4fb0"][variant % 3]!);
      const b = p.c("#f4c542");
      return `
        <path d="M37.5 2 C8 2 0 26 6 42 C12 56 24 64 28 72 L47 72 C51 64 63 56 69 42 C75 26 67 2 37.5 2 Z" fill="${a}" ${line}/>
        <path d="M37.5 2 C24 10 22 40 30 72 L45 72 C53 40 51 10 37.5 2 Z" fill="${b}" ${line}/>
        <path d="M29 72 L31 84 M46 72 L44 84" stroke="${ink}" stroke-width="1"/>
        <rect x="28" y="84" width="19" height="14" rx="2" fill="${p.c("#8a5a34")}" ${line}/>`;
    }
    case "robot": {
      // 70 × 100
      const metal = p.c("#b9c3cf");
      const dark = p.c("#5a6470");
      const eye = p.lit("#3fd0ff", "#7ff0ff");
      return `
        <path d="M35 4 V12" stroke="${ink}" stroke-width="1.6"/><circle cx="35" cy="4" r="3" fill="${p.lit("#e84a3a", "#ff6a4a")}"/>
        <rect x="16" y="12" width="38" height="26" rx="6" fill="${metal}" ${line}/>
        <circle cx="27" cy="24" r="4.5" fill="${eye}" ${line}/><circle cx="43" cy="24" r="4.5" fill="${eye}" ${line}/>
        <rect x="26" y="31" width="18" height="3" rx="1.5" fill="${dark}"/>
        <rect x="30" y="38" width="10" height="4" fill="${dark}"/>
        <rect x="12" y="42" width="46" height="34" rx="5" fill="${metal}" ${line}/>
        <rect x="24" y="50" width="22" height="14" rx="2" fill="${dark}" ${line}/>
        <circle cx="30" cy="57" r="2.4" fill="${eye}"/><circle cx="40" cy="57" r="2.4" fill="${p.lit("#f0c030", "#ffe060")}"/>
        <rect x="2" y="44" width="9" height="28" rx="4.5" fill="${metal}" ${line}/>
        <rect x="59" y="44" width="9" height="28" rx="4.5" fill="${metal}" ${line}/>
        <rect x="19" y="76" width="12" height="24" rx="3" fill="${metal}" ${line}/>
        <rect x="39" y="76" width="12" height="24" rx="3" fill="${metal}" ${line}/>`;
    }
    case "tree": {
      // 85 × 100: a broad-leaved tree.
      const leaves = p.c(["#4f9a4a", "#6aa84f", "#d98a2b"][variant % 3]!);
      const deep = p.c(["#3a7a3a", "#4f8a3a", "#b0641f"][variant % 3]!);
      return `
        <path d="M36 100 C38 84 38 66 34 52 L52 52 C47 66 47 84 50 100 Z" fill="${p.c("#6b4a32")}" ${line}/>
        <path d="M40 60 L26 46 M46 62 L60 48" stroke="${p.c("#6b4a32")}" stroke-width="3.5" stroke-linecap="round"/>
        <circle cx="42.5" cy="28" r="24" fill="${deep}" ${line}/>
        <circle cx="20" cy="42" r="17" fill="${deep}" ${line}/>
        <circle cx="65" cy="42" r="17" fill="${deep}" ${line}/>
        <circle cx="30" cy="22" r="16" fill="${leaves}"/>
        <circle cx="54" cy="20" r="15" fill="${leaves}"/>
        <circle cx="42" cy="40" r="18" fill="${leaves}"/>
        <circle cx="20" cy="42" r="12" fill="${leaves}"/>
        <circle cx="65" cy="42" r="12" fill="${leaves}"/>`;
    }
    case "flower": {
      // 80 × 100: flowers in a vase.
      const petals = ["#e84a6a", "#f0c030", "#8a4fb0", "#f08a24"].map(p.main);
      const bloom = (x: number, y: number, colour: string) =>
        [0, 72, 144, 216, 288]
          .map(
            (a) =>
              `<ellipse cx="${x}" cy="${y - 7}" rx="4.5" ry="7.5" fill="${colour}" ${line} transform="rotate(${a} ${x} ${y})"/>`,
          )
          .join("") + `<circle cx="${x}" cy="${y}" r="4" fill="${p.c("#f6d04a")}" ${line}/>`;
      const stem = p.c("#3f8a3a");
      return `
        <path d="M40 64 C36 46 24 36 18 24 M40 64 C40 44 40 30 40 16 M40 64 C46 46 56 36 62 26" stroke="${stem}" stroke-width="2.4" fill="none"/>
        <path d="M40 52 C30 48 26 42 28 38 C34 40 38 44 40 52 Z" fill="${stem}"/>
        ${bloom(18, 22, petals[variant % 4]!)}${bloom(62, 24, petals[(variant + 1) % 4]!)}${bloom(40, 14, petals[(variant + 2) % 4]!)}
        <path d="M26 62 H54 C56 70 62 76 60 88 C58 96 52 100 40 100 C28 100 22 96 20 88 C18 76 24 70 26 62 Z" fill="${p.c("#4f7fb8")}" ${line}/>
        <path d="M27 74 C36 77 44 77 53 74" stroke="${p.c("#f4f1ea")}" stroke-width="1.6" fill="none"/>`;
    }
    case "cup": {
      // 125 × 100: a steaming cup on its saucer.
      const china = p.main(["#f4f1ea", "#d0343a", "#2f6fb5"][variant % 3]!);
      return `
        <path d="M44 30 C38 22 50 16 44 6 M60 30 C54 22 66 16 60 6 M76 30 C70 22 82 16 76 6" stroke="${p.c("#f4f4f4")}" stroke-width="2.6" fill="none" stroke-linecap="round" opacity="0.8"/>
        <ellipse cx="60" cy="93" rx="52" ry="7" fill="${p.c("#e8e2d6")}" ${line}/>
        <path d="M94 48 C112 46 114 72 92 74" stroke="${ink}" stroke-width="8.4" fill="none"/>
        <path d="M94 48 C112 46 114 72 92 74" stroke="${china}" stroke-width="6" fill="none"/>
        <path d="M24 38 H96 C96 66 86 90 60 90 C34 90 24 66 24 38 Z" fill="${china}" ${line}/>
        <ellipse cx="60" cy="38" rx="36" ry="6" fill="${p.c("#5a3520")}" ${line}/>
        <path d="M30 52 C44 56 76 56 90 52" stroke="${p.c("#d9a441")}" stroke-width="2" fill="none"/>`;
    }
    case "book": {
      // 190 × 100: an open book.
      const cover = p.main(["#8a2f3a", "#2f4f7a", "#2f6a4f"][variant % 3]!);
      const paper = p.c("#fbf6ea");
      const lines = (x: number) =>
        Array.from(
          { length: 7 },
          (_, i) => `<path d="M${x} ${34 + i * 7} H${x + 58}" stroke="${p.c("#b8b0a0")}" stroke-width="1.3"/>`,
        ).join("");
      return `
        <path d="M4 98 L8 34 L95 46 L182 34 L186 98 L95 92 Z" fill="${cover}" ${line}/>
        <path d="M12 90 C40 82 70 82 95 90 L95 30 C70 20 40 20 14 26 Z" fill="${paper}" ${line}/>
        <path d="M178 90 C150 82 120 82 95 90 L95 30 C120 20 150 20 176 26 Z" fill="${paper}" ${line}/>
        ${lines(26)}${lines(106)}
        <path d="M95 30 V90" stroke="${ink}" stroke-width="1.2"/>`;
    }
    case "chair": {
      // 60 × 100: a wooden chair, three-quarter view.
      const wood = p.c(["#a0643a", "#6b4a32", "#c9a46a"][variant % 3]!);
      return `
        <rect x="8" y="4" width="6" height="96" rx="2" fill="${wood}" ${line}/>
        <rect x="44" y="4" width="6" height="60" rx="2" fill="${wood}" ${line}/>
        <rect x="8" y="6" width="42" height="8" rx="2" fill="${wood}" ${line}/>
        <rect x="8" y="22" width="42" height="5" rx="2" fill="${wood}" ${line}/>
        <rect x="48" y="62" width="6" height="38" rx="2" fill="${wood}" ${line}/>
        <rect x="20" y="62" width="5" height="34" rx="2" fill="${wood}" ${line}/>
        <path d="M6 56 L46 56 L58 64 L16 64 Z" fill="${p.main("#c0392b")}" ${line}/>
        <rect x="6" y="63" width="52" height="5" fill="${wood}" ${line}/>`;
    }
    case "clock": {
      // 85 × 100: an alarm clock.
      const body = p.main(["#d0343a", "#2f6fb5", "#3f9a6a"][variant % 3]!);
      const face = p.c("#fbf8f0");
      const ticks = Array.from({ length: 12 }, (_, i) => {
        const a = (i * Math.PI) / 6;
        const r1 = i % 3 === 0 ? 22 : 25;
        return `<path d="M${42.5 + Math.sin(a) * r1} ${54 - Math.cos(a) * r1} L${42.5 + Math.sin(a) * 28} ${54 - Math.cos(a) * 28}" stroke="${ink}" stroke-width="${i % 3 === 0 ? 2.4 : 1.2}"/>`;
      }).join("");
      return `
        <path d="M20 86 L12 100 M65 86 L73 100" stroke="${ink}" stroke-width="4" stroke-linecap="round"/>
        <circle cx="20" cy="16" r="10" fill="${body}" ${line}/><circle cx="65" cy="16" r="10" fill="${body}" ${line}/>
        <circle cx="42.5" cy="54" r="38" fill="${body}" ${line}/>
        <circle cx="42.5" cy="54" r="31" fill="${face}" ${line}/>
        ${ticks}
        <path d="M42.5 54 L42.5 34 M42.5 54 L56 62" stroke="${ink}" stroke-width="3" stroke-linecap="round"/>
        <circle cx="42.5" cy="54" r="2.6" fill="${ink}"/>`;
    }
    case "guitar": {
      // 42 × 100: an acoustic guitar standing upright.
      const wood = p.main(["#d9973f", "#a0522d", "#e0b070"][variant % 3]!);
      return `
        <rect x="17" y="2" width="8" height="14" rx="2" fill="${p.c("#4a2a16")}" ${line}/>
        <rect x="18.5" y="14" width="5" height="42" fill="${p.c("#5a3520")}" ${line}/>
        <path d="M21 48 C10 46 4 54 6 62 C8 68 4 70 3 78 C1 92 12 99 21 99 C30 99 41 92 39 78 C38 70 34 68 36 62 C38 54 32 46 21 48 Z" fill="${wood}" ${line}/>
        <circle cx="21" cy="66" r="6" fill="${p.c("#2a1a10")}"/>
        <rect x="14" y="84" width="14" height="4" rx="1" fill="${p.c("#2a1a10")}"/>
        <path d="M20 16 V86 M22 16 V86" stroke="${p.c("#e8e8e8")}" stroke-width="0.5"/>`;
    }
    case "table": {
      // 400 × 100: a wooden table top seen from the front, for things standing in the foreground.
      const wood = p.c("#9a6a44");
      return `
        <rect x="0" y="0" width="400" height="18" fill="${p.c("#b8845a")}" ${line}/>
        <rect x="0" y="18" width="400" height="82" fill="${wood}"/>
        ${Array.from({ length: 6 }, (_, i) => `<path d="M0 ${30 + i * 12} C100 ${26 + i * 12} 300 ${34 + i * 12} 400 ${30 + i * 12}" stroke="${p.c("#845a38")}" stroke-width="1.4" fill="none"/>`).join("")}`;
    }
  }
}
