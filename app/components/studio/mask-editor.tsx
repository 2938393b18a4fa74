import {
  useEffect,
  useEffectEvent,
  useId,
  useLayoutEffect,
  useRef,
  useState,
  type PointerEvent as ReactPointerEvent,
  type ReactNode,
} from "react";
import { Button } from "antd";
import { useTranslation } from "react-i18next";
import {
  EMPTY_HISTORY,
  applyTool,
  brushRange,
  drawStroke,
  hasPaint,
  liveEdits,
  push,
  redo,
  renderMask,
  surelyEmpty,
  toImagePoint,
  undo,
  type MaskEdit,
  type MaskHistory,
  type MaskStyle,
  type MaskTool,
  type Point,
  type Stroke,
} from "#app/lib/mask.ts";

/** The editor's input image: a same-origin address and its natural size, which the mask will have. */
export interface MaskImage {
  url: string;
  width: number;
  height: number;
}

export interface MaskEditorProps {
  image: MaskImage;
  /** The current mask: a PNG of the image's size, white where to change, black where to keep. */
  value: File | null;
  /** A new mask after each stroke, undo, redo, clear or invert; null when nothing is left to change. */
  onChange: (mask: File | null) => void;
}

type Picture = CanvasImageSource;

/** What is painted shows in this colour, at half opacity (the canvas's own), over any photograph. */
const OVERLAY: MaskStyle = { kind: "overlay", color: "#ff2d6f" };
const OVERLAY_RGB = [0xff, 0x2d, 0x6f] as const;

function canvasOf(width: number, height: number): HTMLCanvasElement {
  const canvas = document.createElement("canvas");
  canvas.width = width;
  canvas.height = height;
  return canvas;
}

/** The PNG of the edits at the image's own size, or null when it leaves nothing to change. */
async function maskFile(edits: readonly MaskEdit<Picture>[], width: number, height: number): Promise<File | null> {
  if (surelyEmpty(edits)) return null;
  const canvas = canvasOf(width, height);
  const ctx = canvas.getContext("2d", { willReadFrequently: true })!;
  renderMask(edits, width, height, ctx);
  if (!hasPaint(ctx.getImageData(0, 0, width, height).data)) return null;
  const blob = await new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, "image/png"));
  return blob ? new File([blob], "mask.png", { type: "image/png" }) : null;
}

/** A mask given from outside, as the first edit: its picture, and its white as the overlay's colour. */
async function baseOf(file: File, width: number, height: number): Promise<MaskEdit<Picture>> {
  const bitmap = await createImageBitmap(file);
  const mask = canvasOf(width, height);
  const maskCtx = mask.getContext("2d", { willReadFrequently: true })!;
  maskCtx.fillStyle = "#000000";
  maskCtx.fillRect(0, 0, width, height);
  maskCtx.drawImage(bitmap, 0, 0, width, height);
  bitmap.close();
  const pixels = maskCtx.getImageData(0, 0, width, height);
  const tinted = new ImageData(width, height);
  for (let i = 0; i < pixels.data.length; i += 4) {
    tinted.data[i] = OVERLAY_RGB[0];
    tinted.data[i + 1] = OVERLAY_RGB[1];
    tinted.data[i + 2] = OVERLAY_RGB[2];
    tinted.data[i + 3] = pixels.data[i]!;
  }
  const overlay = canvasOf(width, height);
  overlay.getContext("2d")!.putImageData(tinted, 0, 0);
  return { kind: "base", mask, overlay };
}

const historyOf = (base: MaskEdit<Picture>): MaskHistory<Picture> => ({ done: [base], undone: [] });

/** Whether a key press belongs to a field that has its own undo. */
function typingIn(target: EventTarget | null): boolean {
  return target instanceof HTMLElement && !!target.closest("input, textarea, select, [contenteditable='true']");
}

/**
 * Paints a mask over an image: brush and eraser of any size, undo and redo (buttons and the usual shortcuts), clear
 * and invert, with a mouse, a pen or a finger. Strokes are kept in the image's own pixels, so the PNG it gives is the
 * image's size whatever the size it is shown at; it is made once a stroke ends, not while it is drawn.
 */
export function MaskEditor({ image, value, onChange }: MaskEditorProps) {
  const { t } = useTranslation("studio");
  const { width, height, url } = image;
  const range = brushRange(width, height);
  const [tool, setTool] = useState<MaskTool>("brush");
  const [size, setSize] = useState(range.initial);
  const [history, setHistory] = useState<MaskHistory<Picture>>(EMPTY_HISTORY);
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const cursorRef = useRef<HTMLDivElement>(null);
  const stroke = useRef<{ pointer: number; stroke: Stroke; box: DOMRect } | null>(null);
  /** The last mask given to onChange, to tell it from one handed in from outside. */
  const given = useRef<File | null>(null);
  const sequence = useRef(0);
  const hintId = useId();
  const sizeId = useId();

  // A new image starts a new mask.
  const [shownImage, setShownImage] = useState(url);
  if (shownImage !== url) {
    setShownImage(url);
    setHistory(EMPTY_HISTORY);
    setSize(range.initial);
  }

  /** Draws the overlay: the edits, and the stroke being drawn, at the canvas's own resolution. */
  const paint = useEffectEvent(() => {
    const canvas = canvasRef.current;
    const ctx = canvas?.getContext("2d");
    if (!canvas || !ctx) return;
    ctx.setTransform(canvas.width / width, 0, 0, canvas.height / height, 0, 0);
    const drawing = stroke.current ? [stroke.current.stroke] : [];
    renderMask([...history.done, ...drawing], width, height, ctx, OVERLAY);
  });

  // The canvas has as many pixels as it shows (times the screen's density), not the image's: a phone does not hold
  // a canvas of a 4K image to show it 390 pixels wide.
  useLayoutEffect(() => {
    const canvas = canvasRef.current;
    if (!canvas) return;
    const fit = () => {
      const box = canvas.getBoundingClientRect();
      const density = window.devicePixelRatio || 1;
      const w = Math.max(1, Math.round(box.width * density));
      const h = Math.max(1, Math.round(box.height * density));
      if (canvas.width !== w || canvas.height !== h) {
        canvas.width = w;
        canvas.height = h;
      }
      paint();
    };
    fit();
    if (typeof ResizeObserver === "undefined") return;
    const observer = new ResizeObserver(fit);
    observer.observe(canvas);
    return () => observer.disconnect();
  }, []);

  useLayoutEffect(() => paint(), [history, width, height]);

  const give = (mask: File | null) => {
    given.current = mask;
    onChange(mask);
  };

  /** Makes the mask of these edits and hands it over, unless a later change has started meanwhile. */
  const emit = (next: MaskHistory<Picture>) => {
    const turn = ++sequence.current;
    void maskFile(next.done, width, height).then(
      (mask) => {
        if (turn === sequence.current) give(mask);
      },
      () => {
        if (turn === sequence.current) give(null);
      },
    );
  };

  const change = (next: MaskHistory<Picture>) => {
    if (next === history) return;
    setHistory(next);
    emit(next);
  };

  // A mask handed in from outside: none clears the editor; another than the last one given becomes its first edit.
  // It replaces whatever mask was still being made.
  useEffect(() => {
    if (value === given.current) return;
    const turn = ++sequence.current;
    const next: Promise<MaskHistory<Picture>> =
      value === null ? Promise.resolve(EMPTY_HISTORY) : baseOf(value, width, height).then(historyOf);
    next.then(
      (history) => {
        if (turn !== sequence.current) return;
        given.current = value;
        setHistory(history);
      },
      () => undefined,
    );
  }, [value, width, height]);

  const onUndo = () => change(undo(history));
  const onRedo = () => change(redo(history));
  const onClear = () => change(push(history, { kind: "clear" }));
  const onInvert = () => change(push(history, { kind: "invert" }));

  const onKey = useEffectEvent((e: KeyboardEvent) => {
    if (!(e.ctrlKey || e.metaKey) || e.altKey || typingIn(e.target)) return;
    const key = e.key.toLowerCase();
    if (key === "z" && !e.shiftKey) onUndo();
    else if ((key === "z" && e.shiftKey) || key === "y") onRedo();
    else return;
    e.preventDefault();
  });
  useEffect(() => {
    const listener = (e: KeyboardEvent) => onKey(e);
    window.addEventListener("keydown", listener);
    return () => window.removeEventListener("keydown", listener);
  }, []);

  const pointOf = (e: { clientX: number; clientY: number }, box: DOMRect): Point =>
    toImagePoint(e.clientX - box.left, e.clientY - box.top, box.width, box.height, width, height);

  /** Draws the newest part of the stroke being drawn, rather than all the edits again at every move. */
  const extend = (from: Point | undefined, points: Point[], current: Stroke) => {
    const canvas = canvasRef.current;
    const ctx = canvas?.getContext("2d");
    if (!canvas || !ctx) return;
    ctx.save();
    ctx.setTransform(canvas.width / width, 0, 0, canvas.height / height, 0, 0);
    applyTool(ctx, current.tool, OVERLAY);
    drawStroke(ctx, { size: current.size, points: from ? [from, ...points] : points });
    ctx.restore();
  };

  const moveCursor = (e: ReactPointerEvent<HTMLCanvasElement>) => {
    const cursor = cursorRef.current;
    if (!cursor) return;
    if (e.pointerType === "touch") {
      cursor.hidden = true;
      return;
    }
    const box = e.currentTarget.getBoundingClientRect();
    const diameter = (size * box.width) / width;
    cursor.hidden = false;
    cursor.style.width = cursor.style.height = `${diameter}px`;
    cursor.style.transform = `translate(${e.clientX - box.left - diameter / 2}px, ${e.clientY - box.top - diameter / 2}px)`;
  };

  const onPointerDown = (e: ReactPointerEvent<HTMLCanvasElement>) => {
    // One stroke at a time: a second finger or a right click does not paint.
    if (stroke.current || (e.pointerType === "mouse" && e.button !== 0)) return;
    e.preventDefault();
    e.currentTarget.setPointerCapture(e.pointerId);
    const box = e.currentTarget.getBoundingClientRect();
    const current: Stroke = { kind: "stroke", tool, size, points: [pointOf(e, box)] };
    stroke.current = { pointer: e.pointerId, stroke: current, box };
    extend(undefined, current.points, current);
  };

  const onPointerMove = (e: ReactPointerEvent<HTMLCanvasElement>) => {
    moveCursor(e);
    const drawing = stroke.current;
    if (!drawing || drawing.pointer !== e.pointerId) return;
    // Every position the pointer passed since the last frame, for a smooth line on a fast stroke.
    const coalesced = e.nativeEvent.getCoalescedEvents?.() ?? [];
    const points = (coalesced.length > 0 ? coalesced : [e.nativeEvent]).map((p) => pointOf(p, drawing.box));
    const from = drawing.stroke.points.at(-1);
    drawing.stroke.points.push(...points);
    extend(from, points, drawing.stroke);
  };

  const onPointerEnd = (e: ReactPointerEvent<HTMLCanvasElement>) => {
    const drawing = stroke.current;
    if (!drawing || drawing.pointer !== e.pointerId) return;
    stroke.current = null;
    change(push(history, drawing.stroke));
  };

  const painted = liveEdits(history.done).length > 0;
  const toolButton = (which: MaskTool, icon: ReactNode) => (
    <Button
      type={tool === which ? "primary" : "default"}
      icon={icon}
      aria-pressed={tool === which}
      onClick={() => setTool(which)}
      data-testid={`mask-${which}`}
    >
      {t(`mask.${which}`)}
    </Button>
  );

  return (
    <div className="mask-editor" data-testid="mask-editor">
      <div className="mask-editor-toolbar" role="toolbar" aria-label={t("mask.toolbar")}>
        <div className="mask-editor-tools">
          {toolButton("brush", <OutlinedIcon d={ICONS.brush} />)}
          {toolButton("eraser", <EraserIcon />)}
        </div>
        <div className="mask-editor-size">
          <span id={sizeId} className="mask-editor-size-label">
            {t("mask.size")}
          </span>
          <input
            type="range"
            min={range.min}
            max={range.max}
            value={size}
            onChange={(e) => setSize(Number(e.target.value))}
            aria-labelledby={sizeId}
            className="mask-editor-slider"
          />
        </div>
        <div className="mask-editor-actions">
          <Button
            title={t("mask.undo")}
            icon={<OutlinedIcon d={ICONS.undo} />}
            aria-label={t("mask.undo")}
            aria-keyshortcuts="Control+Z Meta+Z"
            disabled={history.done.length === 0}
            onClick={onUndo}
            data-testid="mask-undo"
          />
          <Button
            title={t("mask.redo")}
            icon={<OutlinedIcon d={ICONS.redo} />}
            aria-label={t("mask.redo")}
            aria-keyshortcuts="Control+Shift+Z Meta+Shift+Z Control+Y"
            disabled={history.undone.length === 0}
            onClick={onRedo}
            data-testid="mask-redo"
          />
          <Button icon={<OutlinedIcon d={ICONS.invert} />} onClick={onInvert} data-testid="mask-invert">
            {t("mask.invert")}
          </Button>
          <Button
            icon={<OutlinedIcon d={ICONS.clear} />}
            disabled={!painted}
            onClick={onClear}
            data-testid="mask-clear"
          >
            {t("mask.clear")}
          </Button>
        </div>
      </div>
      <p id={hintId} className="mask-editor-hint">
        {t("mask.hint")}
      </p>
      <div
        className="mask-editor-stage"
        style={{ aspectRatio: `${width} / ${height}`, width: `min(100%, calc(70vh * ${width / height}))` }}
      >
        <img src={url} alt={t("mask.imageAlt")} width={width} height={height} draggable={false} />
        <canvas
          ref={canvasRef}
          className="mask-editor-canvas"
          aria-label={t("mask.canvas")}
          aria-describedby={hintId}
          data-testid="mask-canvas"
          onPointerDown={onPointerDown}
          onPointerMove={onPointerMove}
          onPointerUp={onPointerEnd}
          onPointerCancel={onPointerEnd}
          onPointerLeave={() => {
            if (cursorRef.current) cursorRef.current.hidden = true;
          }}
          onContextMenu={(e) => e.preventDefault()}
        />
        <div ref={cursorRef} className="mask-editor-cursor" hidden aria-hidden />
      </div>
    </div>
  );
}

/**
 * Ant Design's outlined icons (their paths, from `@ant-design/icons-svg`), drawn here rather than imported: the
 * modules the studio pages also import would otherwise be split into chunks of their own, which every dashboard page
 * would then fetch.
 */
const ICONS = {
  undo: "M511.4 124C290.5 124.3 112 303 112 523.9c0 128 60.2 242 153.8 315.2l-37.5 48c-4.1 5.3-.3 13 6.3 12.9l167-.8c5.2 0 9-4.9 7.7-9.9L369.8 727a8 8 0 00-14.1-3L315 776.1c-10.2-8-20-16.7-29.3-26a318.64 318.64 0 01-68.6-101.7C200.4 609 192 567.1 192 523.9s8.4-85.1 25.1-124.5c16.1-38.1 39.2-72.3 68.6-101.7 29.4-29.4 63.6-52.5 101.7-68.6C426.9 212.4 468.8 204 512 204s85.1 8.4 124.5 25.1c38.1 16.1 72.3 39.2 101.7 68.6 29.4 29.4 52.5 63.6 68.6 101.7 16.7 39.4 25.1 81.3 25.1 124.5s-8.4 85.1-25.1 124.5a318.64 318.64 0 01-68.6 101.7c-7.5 7.5-15.3 14.5-23.4 21.2a7.93 7.93 0 00-1.2 11.1l39.4 50.5c2.8 3.5 7.9 4.1 11.4 1.3C854.5 760.8 912 649.1 912 523.9c0-221.1-179.4-400.2-400.6-399.9z",
  redo: "M758.2 839.1C851.8 765.9 912 651.9 912 523.9 912 303 733.5 124.3 512.6 124 291.4 123.7 112 302.8 112 523.9c0 125.2 57.5 236.9 147.6 310.2 3.5 2.8 8.6 2.2 11.4-1.3l39.4-50.5c2.7-3.4 2.1-8.3-1.2-11.1-8.1-6.6-15.9-13.7-23.4-21.2a318.64 318.64 0 01-68.6-101.7C200.4 609 192 567.1 192 523.9s8.4-85.1 25.1-124.5c16.1-38.1 39.2-72.3 68.6-101.7 29.4-29.4 63.6-52.5 101.7-68.6C426.9 212.4 468.8 204 512 204s85.1 8.4 124.5 25.1c38.1 16.1 72.3 39.2 101.7 68.6 29.4 29.4 52.5 63.6 68.6 101.7 16.7 39.4 25.1 81.3 25.1 124.5s-8.4 85.1-25.1 124.5a318.64 318.64 0 01-68.6 101.7c-9.3 9.3-19.1 18-29.3 26L668.2 724a8 8 0 00-14.1 3l-39.6 162.2c-1.2 5 2.6 9.9 7.7 9.9l167 .8c6.7 0 10.5-7.7 6.3-12.9l-37.3-47.9z",
  clear:
    "M360 184h-8c4.4 0 8-3.6 8-8v8h304v-8c0 4.4 3.6 8 8 8h-8v72h72v-80c0-35.3-28.7-64-64-64H352c-35.3 0-64 28.7-64 64v80h72v-72zm504 72H160c-17.7 0-32 14.3-32 32v32c0 4.4 3.6 8 8 8h60.4l24.7 523c1.6 34.1 29.8 61 63.9 61h454c34.2 0 62.3-26.8 63.9-61l24.7-523H888c4.4 0 8-3.6 8-8v-32c0-17.7-14.3-32-32-32zM731.3 840H292.7l-24.2-512h487l-24.2 512z",
  invert:
    "M847.9 592H152c-4.4 0-8 3.6-8 8v60c0 4.4 3.6 8 8 8h605.2L612.9 851c-4.1 5.2-.4 13 6.3 13h72.5c4.9 0 9.5-2.2 12.6-6.1l168.8-214.1c16.5-21 1.6-51.8-25.2-51.8zM872 356H266.8l144.3-183c4.1-5.2.4-13-6.3-13h-72.5c-4.9 0-9.5 2.2-12.6 6.1L150.9 380.2c-16.5 21-1.6 51.8 25.1 51.8h696c4.4 0 8-3.6 8-8v-60c0-4.4-3.6-8-8-8z",
  brush:
    "M957.6 507.4L603.2 158.2a7.9 7.9 0 00-11.2 0L353.3 393.4a8.03 8.03 0 00-.1 11.3l.1.1 40 39.4-117.2 115.3a8.03 8.03 0 00-.1 11.3l.1.1 39.5 38.9-189.1 187H72.1c-4.4 0-8.1 3.6-8.1 8V860c0 4.4 3.6 8 8 8h344.9c2.1 0 4.1-.8 5.6-2.3l76.1-75.6 40.4 39.8a7.9 7.9 0 0011.2 0l117.1-115.6 40.1 39.5a7.9 7.9 0 0011.2 0l238.7-235.2c3.4-3 3.4-8 .3-11.2zM389.8 796.2H229.6l134.4-133 80.1 78.9-54.3 54.1zm154.8-62.1L373.2 565.2l68.6-67.6 171.4 168.9-68.6 67.6zM713.1 658L450.3 399.1 597.6 254l262.8 259-147.3 145z",
};

function OutlinedIcon({ d }: { d: string }) {
  return (
    <span role="img" aria-hidden className="anticon">
      <svg viewBox="64 64 896 896" width="1em" height="1em" fill="currentColor" focusable="false">
        <path d={d} />
      </svg>
    </span>
  );
}

/** Ant Design has no eraser: a tilted block with its rubbed-out end, drawn like its outlined icons. */
function EraserIcon() {
  return (
    <span role="img" aria-hidden className="anticon">
      <svg viewBox="0 0 24 24" width="1em" height="1em" fill="none" stroke="currentColor" strokeWidth="2">
        <path d="M7 21h13" strokeLinecap="round" />
        <path
          d="M4.6 14.6 14.6 4.6a2 2 0 0 1 2.8 0l2 2a2 2 0 0 1 0 2.8L10 18.8a2 2 0 0 1-1.4.6H7.4a2 2 0 0 1-1.4-.6l-1.4-1.4a2 2 0 0 1 0-2.8Z"
          strokeLinejoin="round"
        />
        <path d="m9.5 9.7 5 5" />
      </svg>
    </span>
  );
}

export default MaskEditor;
