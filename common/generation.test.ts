import { describe, expect, it } from "vitest";
import { nearestRatio, paddingTo } from "./generation.ts";

describe("extending an image to a ratio", () => {
  it("grows one side only, centred, to the exact ratio", () => {
    expect(paddingTo({ width: 320, height: 200 }, "1:1")).toEqual({ top: 60, bottom: 60, left: 0, right: 0 });
    expect(paddingTo({ width: 301, height: 300 }, "16:9")).toEqual({ top: 0, bottom: 0, left: 116, right: 116 });
    expect(paddingTo({ width: 100, height: 100 }, "3:4")).toEqual({ top: 16, bottom: 17, left: 0, right: 0 });
  });

  it("adds nothing for the image's own ratio", () => {
    expect(paddingTo({ width: 1024, height: 768 }, "4:3")).toEqual({ top: 0, bottom: 0, left: 0, right: 0 });
  });

  it("names the ratio nearest a size", () => {
    expect(nearestRatio(1024, 1024)).toBe("1:1");
    expect(nearestRatio(320, 200)).toBe("16:9");
    expect(nearestRatio(300, 390)).toBe("3:4");
    expect(nearestRatio(100, 400)).toBe("9:16");
  });
});
