/**
 * The mask editor's drawing model, kept apart from the component so that it can be tested without a browser.
 *
 * A mask is the replay of a list of edits over an image's own pixels: brush and eraser strokes, inversions and
 * clears, in the order they were made. Undo and redo move through that list; nothing is ever drawn that the list
 * does not hold, so the PNG sent with a request and the overlay shown on screen are two renderings of the same edits.
 * Coordinates are the image's natural pixels: the result does not depend on the size the image is shown at.
 */

export type MaskTool = "brush" | "eraser";

export type Point = readonly [x: number, y: number];

export interface Stroke {
  kind: "stroke";
  tool: MaskTool;
  /** The brush's diameter, in image pixels. */
  size: number;
  points: Point[];
}

/**
 * A mask that came from elsewhere (a mask given to the editor), drawn first: `mask` is the white-on-black picture,
 * `overlay` the same coverage in the overlay's colour on transparent.
 */
export interface BaseMask<Image = unknown> {
  kind: "base";
  mask: Image;
  overlay: Image;
}

export type MaskEdit<Image = unknown> = Stroke | { kind: "invert" } | { kind: "clear" } | BaseMask<Image>;

/** The part of `CanvasRenderingContext2D` the rendering uses. */
export interface MaskContext<Image = unknown> {
  fillStyle: string | CanvasGradient | CanvasPattern;
  strokeStyle: string | CanvasGradient | CanvasPattern;
  lineWidth: number;
  lineCap: CanvasLineCap;
  lineJoin: CanvasLineJoin;
  globalCompositeOperation: GlobalCompositeOperation;
  save(): void;
  restore(): void;
  beginPath(): void;
  moveTo(x: number, y: number): void;
  lineTo(x: number, y: number): void;
  arc(x: number, y: number, radius: number, startAngle: number, endAngle: number): void;
  stroke(): void;
  fill(): void;
  fillRect(x: number, y: number, w: number, h: number): void;
  clearRect(x: number, y: number, w: number, h: number): void;
  drawImage(image: Image, dx: number, dy: number, dw: number, dh: number): void;
}

/**
 * How the edits are drawn: `mask` is the PNG a model takes (opaque black, white where to change); `overlay` is what
 * the person sees over the image (transparent, `color` where to change).
 */
export type MaskStyle = { kind: "mask" } | { kind: "overlay"; color: string };

export const MASK_STYLE: MaskStyle = { kind: "mask" };

/** The edits that count: everything after the last clear (which wipes what came before). */
export function liveEdits<Image>(edits: readonly MaskEdit<Image>[]): MaskEdit<Image>[] {
  let start = 0;
  edits.forEach((edit, i) => {
    if (edit.kind === "clear") start = i + 1;
  });
  return edits.slice(start);
}

/**
 * Whether the edits certainly leave nothing to change, without drawing them: none, or only eraser strokes, after
 * the last clear. When this says no, the mask may still be empty (a stroke erased again), which only its pixels
 * tell.
 */
export function surelyEmpty(edits: readonly MaskEdit[]): boolean {
  return liveEdits(edits).every((edit) => edit.kind === "stroke" && edit.tool === "eraser");
}

/** Draws one stroke's path (a dot for a single point), in image pixels, with the current styles. */
export function drawStroke(ctx: MaskContext, stroke: Pick<Stroke, "size" | "points">): void {
  const [first, ...rest] = stroke.points;
  if (!first) return;
  ctx.beginPath();
  if (rest.length === 0) {
    // A tap: a round dot (a zero-length line draws nothing).
    ctx.arc(first[0], first[1], stroke.size / 2, 0, Math.PI * 2);
    ctx.fill();
    return;
  }
  ctx.lineWidth = stroke.size;
  ctx.lineCap = "round";
  ctx.lineJoin = "round";
  ctx.moveTo(first[0], first[1]);
  for (const [x, y] of rest) ctx.lineTo(x, y);
  ctx.stroke();
}

/** Sets the fill, stroke and compositing with which a brush or an eraser paints in a style. */
export function applyTool(ctx: MaskContext, tool: MaskTool, style: MaskStyle): void {
  if (style.kind === "mask") {
    ctx.globalCompositeOperation = "source-over";
    ctx.fillStyle = ctx.strokeStyle = tool === "brush" ? "#ffffff" : "#000000";
    return;
  }
  // The eraser takes the overlay away; any opaque colour does that.
  ctx.globalCompositeOperation = tool === "brush" ? "source-over" : "destination-out";
  ctx.fillStyle = ctx.strokeStyle = style.color;
}

function wipe(ctx: MaskContext, width: number, height: number, style: MaskStyle) {
  ctx.globalCompositeOperation = "source-over";
  if (style.kind === "mask") {
    ctx.fillStyle = "#000000";
    ctx.fillRect(0, 0, width, height);
  } else {
    ctx.clearRect(0, 0, width, height);
  }
}

/**
 * Draws the edits over a `width`×`height` image in `ctx` (whose transform maps image pixels to its own). The mask
 * style leaves opaque black and white (grey only on anti-aliased edges); inverting turns each pixel v into 255 − v
 * in the mask and each coverage a into 1 − a in the overlay, so the two renderings keep showing the same area.
 */
export function renderMask<Image>(
  edits: readonly MaskEdit<Image>[],
  width: number,
  height: number,
  ctx: MaskContext<Image>,
  style: MaskStyle = MASK_STYLE,
): void {
  ctx.save();
  wipe(ctx, width, height, style);
  for (const edit of liveEdits(edits)) {
    switch (edit.kind) {
      case "stroke":
        applyTool(ctx, edit.tool, style);
        drawStroke(ctx, edit);
        break;
      case "invert":
        // White minus each pixel in the mask; in the overlay, colour where there was none and none where there was.
        ctx.globalCompositeOperation = style.kind === "mask" ? "difference" : "xor";
        ctx.fillStyle = style.kind === "mask" ? "#ffffff" : style.color;
        ctx.fillRect(0, 0, width, height);
        break;
      case "base":
        wipe(ctx, width, height, style);
        ctx.globalCompositeOperation = "source-over";
        ctx.drawImage(style.kind === "mask" ? edit.mask : edit.overlay, 0, 0, width, height);
        break;
      case "clear":
        break;
    }
  }
  ctx.restore();
}

/** The history of edits with undo and redo: `done` is what the mask shows, `undone` what redo brings back. */
export interface MaskHistory<Image = unknown> {
  done: MaskEdit<Image>[];
  undone: MaskEdit<Image>[];
}

export const EMPTY_HISTORY: MaskHistory<never> = { done: [], undone: [] };

/** A new edit; what was undone can no longer be redone. A clear of an already empty mask changes nothing. */
export function push<Image>(history: MaskHistory<Image>, edit: MaskEdit<Image>): MaskHistory<Image> {
  if (edit.kind === "clear" && liveEdits(history.done).length === 0) return history;
  return { done: [...history.done, edit], undone: [] };
}

export function undo<Image>(history: MaskHistory<Image>): MaskHistory<Image> {
  const last = history.done.at(-1);
  if (!last) return history;
  return { done: history.done.slice(0, -1), undone: [last, ...history.undone] };
}

export function redo<Image>(history: MaskHistory<Image>): MaskHistory<Image> {
  const [next, ...rest] = history.undone;
  if (!next) return history;
  return { done: [...history.done, next], undone: rest };
}

/** The brush sizes offered for an image, in its pixels: from a fine line to a quarter of its shorter side. */
export function brushRange(width: number, height: number): { min: number; max: number; initial: number } {
  const shorter = Math.max(1, Math.min(width, height));
  const min = Math.max(1, Math.round(shorter / 200));
  const max = Math.max(min + 1, Math.round(shorter / 4));
  const initial = Math.min(max, Math.max(min, Math.round(shorter / 20)));
  return { min, max, initial };
}

/**
 * A point on screen, relative to the shown image's box of `shownWidth`×`shownHeight`, in image pixels. Not clamped:
 * a stroke that leaves the image and comes back keeps its course, and the canvas cuts off what falls outside.
 */
export function toImagePoint(
  x: number,
  y: number,
  shownWidth: number,
  shownHeight: number,
  width: number,
  height: number,
): Point {
  return [shownWidth > 0 ? (x / shownWidth) * width : 0, shownHeight > 0 ? (y / shownHeight) * height : 0];
}

/** Whether any pixel of an RGBA buffer (as `getImageData` gives) is not black: the mask has something to change. */
export function hasPaint(data: ArrayLike<number>): boolean {
  for (let i = 0; i < data.length; i += 4) {
    if (data[i]! > 0) return true;
  }
  return false;
}
