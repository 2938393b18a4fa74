import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { LOCALES } from "#common/locales.ts";
import { renderDemoImage } from "#server/providers/demo/image-model.ts";
import { readPrompt } from "#server/providers/demo/prompt.ts";
import {
  buildScene,
  createCanvas,
  layoutSeed,
  paintSubjects,
  renderScene,
  STILL,
  type Scene,
} from "#server/providers/demo/scene.ts";
import { findSubjects, SUBJECTS } from "#server/providers/demo/subjects.ts";

function sceneOf(prompt: string, seed = 7, aspect = 1): Scene {
  return buildScene(readPrompt(prompt, undefined, seed), layoutSeed(prompt, seed), aspect);
}

/** The scene drawn at 256 px, with or without its subjects. */
async function draw(prompt: string, scene: Scene, withSubjects: boolean): Promise<Float32Array> {
  const canvas = createCanvas(256, 256);
  if (withSubjects) await paintSubjects(scene, 256, readPrompt(prompt, undefined, 7));
  else scene.sprites = [];
  renderScene(canvas, scene, STILL);
  return canvas.data;
}

describe("the offline demo's subjects", () => {
  it.each([["a lighthouse on a cliff"], ["崖の上の灯台"], ["Ein Leuchtturm auf einer Klippe"]])(
    "draws a lighthouse standing on a cliff for “%s”",
    (prompt) => {
      const reading = readPrompt(prompt, undefined, 7);
      expect(reading).toMatchObject({ subjects: ["lighthouse"], cliff: true, composition: "sea" });
      const scene = sceneOf(prompt);
      const cliff = scene.layers.find((l) => l.cliff);
      expect(cliff).toBeDefined();
      const tower = scene.subjects.find((s) => s.id === "lighthouse");
      expect(tower).toMatchObject({ placement: "ground", on: cliff });
      // It stands on the level top of the cliff, inside the picture, and reaches well up into the sky.
      expect(tower!.u).toBeGreaterThan(0);
      expect(tower!.u).toBeLessThan(1);
      expect(tower!.v).toBeLessThan(0.8);
      expect(tower!.h).toBeGreaterThan(0.3);
    },
  );

  it("paints the subject where it was placed, and nothing of it without a subject", async () => {
    const scene = sceneOf("a lighthouse on a cliff");
    const plain = await draw("a lighthouse on a cliff", sceneOf("a lighthouse on a cliff"), false);
    const drawn = await draw("a lighthouse on a cliff", scene, true);
    const tower = scene.subjects.find((s) => s.id === "lighthouse")!;
    let inside = 0;
    let outside = 0;
    let n = 0;
    for (let y = 0; y < 256; y++) {
      for (let x = 0; x < 256; x++) {
        const u = (x + 0.5) / 256;
        const v = (y + 0.5) / 256;
        const i = (y * 256 + x) * 3;
        const d = Math.abs(drawn[i]! - plain[i]!) + Math.abs(drawn[i + 1]! - plain[i + 1]!);
        const inBox = Math.abs(u - tower.u) < (tower.h * tower.ratio) / 2 && v < tower.v && v > tower.v - tower.h;
        if (inBox) {
          inside += d;
          n++;
        } else if (Math.abs(u - tower.u) > tower.h && v > tower.v - tower.h - 0.1) outside += d;
      }
    }
    expect(inside / n).toBeGreaterThan(0.2);
    expect(outside).toBe(0);
  });

  it("draws a different picture when the prompt names a subject than when it does not", async () => {
    const a = await renderDemoImage({ prompt: "a lighthouse on a cliff", seed: 3, width: 256, height: 256 });
    const b = await renderDemoImage({ prompt: "a cliff", seed: 3, width: 256, height: 256 });
    const [ra, rb] = await Promise.all([a, b].map((png) => sharp(png).raw().toBuffer()));
    let diff = 0;
    for (let i = 0; i < ra!.length; i++) diff += Math.abs(ra![i]! - rb![i]!);
    expect(diff / ra!.length).toBeGreaterThan(5);
  });

  it.each([
    ["a black cat sleeping in the garden", ["cat"]],
    ["un chien et un chat", ["dog", "cat"]],
    ["自行车和汽车", ["bicycle", "car"]],
    ["ein Haus am See mit einem Boot", ["house", "boat"]],
    ["замок на холме, который стоит у моря", ["castle"]],
    ["a portrait of a woman", ["portrait"]],
    ["many mountains", []],
    ["a cup of tea and a book", ["cup", "book"]],
    ["nehirde bir gemi", ["boat"]],
    ["언덕 위의 성", ["castle"]],
    ["一只猫在花园里", ["cat"]],
  ])("finds the subjects of “%s”", (prompt, ids) => {
    expect(findSubjects(prompt)).toEqual(ids);
  });

  it("stands small objects on a table when one is the main subject, and on the land beside another", () => {
    const still = sceneOf("a cup of coffee and a cat");
    expect(still.subjects.map((s) => [s.id, s.placement])).toEqual([
      ["table", "table"],
      ["cup", "table"],
      ["cat", "table"],
    ]);
    const outside = sceneOf("a cat with a cup of coffee");
    expect(outside.subjects.map((s) => [s.id, s.placement])).toEqual([
      ["cat", "ground"],
      ["cup", "ground"],
    ]);
  });

  it("leaves out a subject the negative prompt names", () => {
    expect(findSubjects("a horse and a dog in a field", "dogs")).toEqual(["horse"]);
  });

  it("names every subject in every language of the site", () => {
    for (const subject of SUBJECTS) {
      for (const locale of LOCALES)
        expect(subject.words[locale].length, `${subject.id} in ${locale}`).toBeGreaterThan(0);
    }
  });

  it("has a drawing for every subject, and the same one for the same prompt and seed", async () => {
    for (const subject of SUBJECTS) {
      const prompt = `a ${subject.words.en[0]}`;
      const scene = sceneOf(prompt);
      expect(
        scene.subjects.map((s) => s.id),
        prompt,
      ).toContain(subject.id);
      await paintSubjects(scene, 128, readPrompt(prompt, undefined, 7));
      const sprite = scene.sprites![scene.subjects.findIndex((s) => s.id === subject.id)]!;
      let covered = 0;
      for (let i = 3; i < sprite.data.length; i += 4) covered += sprite.data[i]! > 0.5 ? 1 : 0;
      expect(covered / (sprite.width * sprite.height), subject.id).toBeGreaterThan(0.08);
    }
    const first = await renderDemoImage({ prompt: "a red car by the sea", seed: 5, width: 128, height: 128 });
    const again = await renderDemoImage({ prompt: "a red car by the sea", seed: 5, width: 128, height: 128 });
    expect(Buffer.from(again).equals(Buffer.from(first))).toBe(true);
  });
});
