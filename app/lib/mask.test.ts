import { describe, expect, it } from "vitest";
import {
  EMPTY_HISTORY,
  brushRange,
  hasPaint,
  liveEdits,
  push,
  redo,
  renderMask,
  surelyEmpty,
  toImagePoint,
  undo,
  type MaskContext,
  type MaskEdit,
  type Stroke,
} from "#app/lib/mask.ts";

/** A context that writes down what is drawn, with the styles in force at each drawing call. */
function recorder() {
  const calls: string[] = [];
  const state = {
    fillStyle: "#000000" as MaskContext["fillStyle"],
    strokeStyle: "#000000" as MaskContext["strokeStyle"],
    lineWidth: 1,
    lineCap: "butt" as CanvasLineCap,
    lineJoin: "miter" as CanvasLineJoin,
    globalCompositeOperation: "source-over" as GlobalCompositeOperation,
  };
  const saved: (typeof state)[] = [];
  const ctx: MaskContext<string> = Object.assign(state, {
    save: () => saved.push({ ...state }),
    restore: () => Object.assign(state, saved.pop()),
    beginPath: () => calls.push("beginPath"),
    moveTo: (x: number, y: number) => calls.push(`moveTo ${x},${y}`),
    lineTo: (x: number, y: number) => calls.push(`lineTo ${x},${y}`),
    arc: (x: number, y: number, r: number) => calls.push(`arc ${x},${y} r${r}`),
    stroke: () =>
      calls.push(
        `stroke ${String(state.strokeStyle)} ${state.globalCompositeOperation} w${state.lineWidth} ${state.lineCap}/${state.lineJoin}`,
      ),
    fill: () => calls.push(`fill ${String(state.fillStyle)} ${state.globalCompositeOperation}`),
    fillRect: (x: number, y: number, w: number, h: number) =>
      calls.push(`fillRect ${x},${y},${w},${h} ${String(state.fillStyle)} ${state.globalCompositeOperation}`),
    clearRect: (x: number, y: number, w: number, h: number) => calls.push(`clearRect ${x},${y},${w},${h}`),
    drawImage: (image: string, x: number, y: number, w: number, h: number) =>
      calls.push(`drawImage ${image} ${x},${y},${w},${h}`),
  });
  return { ctx, calls, state };
}

const brush = (points: [number, number][], size = 20): Stroke => ({ kind: "stroke", tool: "brush", size, points });
const eraser = (points: [number, number][], size = 20): Stroke => ({ kind: "stroke", tool: "eraser", size, points });

describe("renderMask", () => {
  it("draws the mask on opaque black, brush strokes white with round ends, in image pixels", () => {
    const { ctx, calls } = recorder();
    renderMask(
      [
        brush(
          [
            [10, 20],
            [200, 20],
            [200, 300],
          ],
          24,
        ),
      ],
      640,
      480,
      ctx,
    );
    expect(calls).toEqual([
      "fillRect 0,0,640,480 #000000 source-over",
      "beginPath",
      "moveTo 10,20",
      "lineTo 200,20",
      "lineTo 200,300",
      "stroke #ffffff source-over w24 round/round",
    ]);
  });

  it("draws a tap as a round dot of the brush's diameter", () => {
    const { ctx, calls } = recorder();
    renderMask([brush([[50, 60]], 30)], 100, 100, ctx);
    expect(calls.slice(1)).toEqual(["beginPath", "arc 50,60 r15", "fill #ffffff source-over"]);
  });

  it("erases with black in the mask and by taking the overlay away on screen", () => {
    const mask = recorder();
    renderMask(
      [
        brush([
          [0, 0],
          [9, 9],
        ]),
        eraser([
          [5, 5],
          [6, 6],
        ]),
      ],
      10,
      10,
      mask.ctx,
    );
    expect(mask.calls.at(-1)).toBe("stroke #000000 source-over w20 round/round");
    const overlay = recorder();
    renderMask(
      [
        brush([
          [0, 0],
          [9, 9],
        ]),
        eraser([
          [5, 5],
          [6, 6],
        ]),
      ],
      10,
      10,
      overlay.ctx,
      {
        kind: "overlay",
        color: "#ff0000",
      },
    );
    expect(overlay.calls[0]).toBe("clearRect 0,0,10,10");
    expect(overlay.calls.filter((c) => c.startsWith("stroke"))).toEqual([
      "stroke #ff0000 source-over w20 round/round",
      "stroke #ff0000 destination-out w20 round/round",
    ]);
  });

  it("inverts by white minus each pixel in the mask, and by exclusive or of the colour on screen", () => {
    const mask = recorder();
    renderMask([brush([[1, 1]]), { kind: "invert" }], 64, 32, mask.ctx);
    expect(mask.calls.at(-1)).toBe("fillRect 0,0,64,32 #ffffff difference");
    const overlay = recorder();
    renderMask([{ kind: "invert" }], 64, 32, overlay.ctx, { kind: "overlay", color: "#ff0000" });
    expect(overlay.calls).toEqual(["clearRect 0,0,64,32", "fillRect 0,0,64,32 #ff0000 xor"]);
  });

  it("draws nothing of what came before a clear", () => {
    const { ctx, calls } = recorder();
    renderMask(
      [
        brush([
          [1, 1],
          [2, 2],
        ]),
        { kind: "invert" },
        { kind: "clear" },
        brush([[7, 7]], 4),
      ],
      10,
      10,
      ctx,
    );
    expect(calls).toEqual([
      "fillRect 0,0,10,10 #000000 source-over",
      "beginPath",
      "arc 7,7 r2",
      "fill #ffffff source-over",
    ]);
  });

  it("draws a mask given from outside first, as its mask or as its overlay", () => {
    const edits: MaskEdit<string>[] = [{ kind: "base", mask: "MASK", overlay: "TINT" }, brush([[3, 3]], 2)];
    const mask = recorder();
    renderMask(edits, 8, 6, mask.ctx);
    expect(mask.calls.slice(0, 3)).toEqual([
      "fillRect 0,0,8,6 #000000 source-over",
      "fillRect 0,0,8,6 #000000 source-over",
      "drawImage MASK 0,0,8,6",
    ]);
    const overlay = recorder();
    renderMask(edits, 8, 6, overlay.ctx, { kind: "overlay", color: "#00f" });
    expect(overlay.calls.slice(0, 3)).toEqual(["clearRect 0,0,8,6", "clearRect 0,0,8,6", "drawImage TINT 0,0,8,6"]);
  });

  it("leaves the context's own styles as they were", () => {
    const { ctx, state } = recorder();
    renderMask(
      [
        brush([
          [1, 1],
          [5, 5],
        ]),
        { kind: "invert" },
      ],
      10,
      10,
      ctx,
    );
    expect(state).toMatchObject({ fillStyle: "#000000", globalCompositeOperation: "source-over", lineWidth: 1 });
  });
});

describe("the history of edits", () => {
  it("undoes and redoes in order, and a new edit drops what was undone", () => {
    const a = brush([[1, 1]]);
    const b = brush([[2, 2]]);
    const c = eraser([[3, 3]]);
    let h = push(push(EMPTY_HISTORY as typeof EMPTY_HISTORY, a), b);
    expect(h.done).toEqual([a, b]);
    h = undo(h);
    expect(h).toEqual({ done: [a], undone: [b] });
    h = undo(h);
    expect(h).toEqual({ done: [], undone: [a, b] });
    expect(undo(h)).toBe(h);
    h = redo(h);
    expect(h).toEqual({ done: [a], undone: [b] });
    h = push(h, c);
    expect(h).toEqual({ done: [a, c], undone: [] });
    expect(redo(h)).toBe(h);
  });

  it("a clear is an edit that can be undone, and clearing an empty mask changes nothing", () => {
    expect(push(EMPTY_HISTORY, { kind: "clear" })).toBe(EMPTY_HISTORY);
    const h = push(push(EMPTY_HISTORY, brush([[1, 1]])), { kind: "clear" });
    expect(liveEdits(h.done)).toEqual([]);
    expect(push(h, { kind: "clear" })).toBe(h);
    expect(liveEdits(undo(h).done)).toHaveLength(1);
  });

  it("knows a mask is empty without drawing it when nothing but erasing follows the last clear", () => {
    expect(surelyEmpty([])).toBe(true);
    expect(surelyEmpty([eraser([[1, 1]])])).toBe(true);
    expect(surelyEmpty([brush([[1, 1]]), { kind: "clear" }, eraser([[1, 1]])])).toBe(true);
    expect(surelyEmpty([brush([[1, 1]])])).toBe(false);
    expect(surelyEmpty([{ kind: "invert" }])).toBe(false);
    expect(surelyEmpty([{ kind: "base", mask: 1, overlay: 2 }])).toBe(false);
  });
});

describe("sizes and coordinates", () => {
  it("offers brush sizes from a fine line to a quarter of the shorter side", () => {
    expect(brushRange(640, 480)).toEqual({ min: 2, max: 120, initial: 24 });
    expect(brushRange(4096, 2048)).toEqual({ min: 10, max: 512, initial: 102 });
    expect(brushRange(16, 16)).toEqual({ min: 1, max: 4, initial: 1 });
  });

  it("maps a point on the shown image to the image's own pixels, whatever the size shown", () => {
    expect(toImagePoint(195, 73.125, 390, 292.5, 640, 480)).toEqual([320, 120]);
    expect(toImagePoint(683, 256, 1366, 1024, 640, 480)).toEqual([320, 120]);
    // Outside the image (a stroke that strays beyond it) stays outside: the canvas cuts it off.
    expect(toImagePoint(-10, 400, 390, 292.5, 640, 480)[0]).toBeLessThan(0);
  });

  it("finds paint in a mask's pixels by their red channel", () => {
    expect(hasPaint(new Uint8ClampedArray([0, 0, 0, 255, 0, 0, 0, 255]))).toBe(false);
    expect(hasPaint(new Uint8ClampedArray([0, 0, 0, 255, 3, 3, 3, 255]))).toBe(true);
  });
});
