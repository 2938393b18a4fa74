import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { drawLabel } from "#server/media/label.ts";
import type { LabelPosition } from "#common/label.ts";

const WIDTH = 400;
const HEIGHT = 300;

/** A picture's pixels as RGB, and how many differ from another's in each quarter of the picture. */
async function pixels(bytes: Uint8Array) {
  const { data } = await sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return data;
}
function changedByQuarter(a: Buffer, b: Buffer) {
  const quarters = { "top-left": 0, "top-right": 0, "bottom-left": 0, "bottom-right": 0 };
  for (let y = 0; y < HEIGHT; y++)
    for (let x = 0; x < WIDTH; x++) {
      const at = (y * WIDTH + x) * 3;
      if (Math.abs(a[at]! - b[at]!) + Math.abs(a[at + 1]! - b[at + 1]!) + Math.abs(a[at + 2]! - b[at + 2]!) > 24)
        quarters[`${y < HEIGHT / 2 ? "top" : "bottom"}-${x < WIDTH / 2 ? "left" : "right"}` as LabelPosition]++;
    }
  return quarters;
}

describe("the visible label", () => {
  it.each(["top-left", "top-right", "bottom-left", "bottom-right"] as const)(
    "is drawn in the %s corner and nowhere else",
    async (position) => {
      const source = await sharp({ create: { width: WIDTH, height: HEIGHT, channels: 3, background: "#e8d8b0" } })
        .png()
        .toBuffer();
      const labelled = await drawLabel(source, "png", { text: "AI-generated", position });
      expect((await sharp(labelled).metadata()).format).toBe("png");
      const quarters = changedByQuarter(await pixels(source), await pixels(labelled));
      expect(quarters[position]).toBeGreaterThan(200);
      for (const [quarter, changed] of Object.entries(quarters)) if (quarter !== position) expect(changed).toBe(0);
    },
  );

  it("keeps the format, and leaves a picture too small for it as it was", async () => {
    const jpeg = await sharp({ create: { width: WIDTH, height: HEIGHT, channels: 3, background: "#345" } })
      .jpeg()
      .toBuffer();
    const labelled = await drawLabel(jpeg, "jpeg", { text: "Made with AI & <friends>", position: "top-left" });
    expect((await sharp(labelled).metadata()).format).toBe("jpeg");
    const tiny = await sharp({ create: { width: 40, height: 30, channels: 3, background: "#345" } })
      .png()
      .toBuffer();
    expect(await drawLabel(tiny, "png", { text: "AI-generated", position: "top-left" })).toBe(tiny);
  });
});
