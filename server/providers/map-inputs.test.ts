import { describe, expect, it } from "vitest";
import { mappedInputs } from "#server/providers/map-inputs.ts";

const png = (byte: number) => ({ bytes: new Uint8Array([byte, byte, byte]), mediaType: "image/png" });
const dataUrlOf = (byte: number) => `data:image/png;base64,${Buffer.from([byte, byte, byte]).toString("base64")}`;

describe("mappedInputs", () => {
  it("sends the start image, the mask and the end image as data URLs where the mapping names them", () => {
    const sent = mappedInputs(
      { prompt: "prompt", inputImage: { field: "image_url" }, mask: "mask_url", endImage: "tail_image_url" },
      { prompt: "a fox", aspectRatio: "1:1", inputImage: png(1), mask: png(2), endImage: png(3) },
      undefined,
    );
    expect(sent).toEqual({
      prompt: "a fox",
      image_url: dataUrlOf(1),
      mask_url: dataUrlOf(2),
      tail_image_url: dataUrlOf(3),
    });
  });

  it("sends the scale as a number in the mapped field", () => {
    const sent = mappedInputs(
      { inputImage: { field: "image_url" }, scale: "upscale_factor" },
      { prompt: "", aspectRatio: "1:1", inputImage: png(1), scale: 4 },
      {},
    );
    expect(sent).toEqual({ image_url: dataUrlOf(1), upscale_factor: 4 });
  });

  it("sends no prompt when there is no text, so the model keeps its own default", () => {
    const mapping = { prompt: "prompt", inputImage: { field: "image_url" }, scale: "upscale_factor" };
    const none = mappedInputs(mapping, { prompt: "", aspectRatio: "1:1", inputImage: png(1), scale: 2 }, {});
    expect(none).not.toHaveProperty("prompt");
    const some = mappedInputs(mapping, { prompt: "crisp", aspectRatio: "1:1", inputImage: png(1), scale: 2 }, {});
    expect(some.prompt).toBe("crisp");
  });

  it("leaves out what the request does not have, and what the mapping does not place", () => {
    const mapping = { prompt: "prompt", mask: "mask", endImage: "end_image", scale: "scale" };
    expect(mappedInputs(mapping, { prompt: "x", aspectRatio: "1:1" }, {})).toEqual({ prompt: "x" });
    expect(
      mappedInputs(
        { prompt: "prompt" },
        { prompt: "x", aspectRatio: "1:1", mask: png(2), endImage: png(3), scale: 2 },
        {},
      ),
    ).toEqual({ prompt: "x" });
  });
});
