import { useRef, useState } from "react";
import { data } from "react-router";
import type { Route } from "./+types/mask-editor";
import { requestInfoContext } from "#app/context.ts";
import { LazyMaskEditor } from "#app/components/studio/mask-editor-lazy.tsx";
import { resourcesFor } from "#server/i18n/translations.ts";
import { localeOfPath } from "#common/locales.ts";

/**
 * `/dashboard/__test/mask-editor`: the mask editor alone, where a studio's form would hold it, over a drawn `w`×`h`
 * image (640×480 unless given), with each mask it gives written into the page for the end-to-end suite to read.
 * Only with TEST_ROUTES on.
 */
export function loader({ context, request }: Route.LoaderArgs) {
  if (!context.get(requestInfoContext).testRoutes) throw data(null, { status: 404 });
  const url = new URL(request.url);
  const side = (name: string, fallback: number) => {
    const n = Number(url.searchParams.get(name) ?? fallback);
    return Number.isInteger(n) && n >= 16 && n <= 4096 ? n : fallback;
  };
  return {
    width: side("w", 640),
    height: side("h", 480),
    i18n: resourcesFor(localeOfPath(url.pathname), ["studio"]),
  };
}

/** A landscape of flat shapes, so that a screenshot shows the overlay over something. */
function sceneOf(width: number, height: number): string {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 640 480" preserveAspectRatio="none">
<rect width="640" height="480" fill="#8fc7ef"/><circle cx="500" cy="110" r="56" fill="#ffd45c"/>
<path d="M0 330 160 190 300 320 430 220 640 360V480H0Z" fill="#4f7d5a"/><path d="M0 400Q320 330 640 410V480H0Z" fill="#345c3f"/>
<rect x="120" y="300" width="90" height="80" fill="#c8553d"/><path d="M110 305 165 255 220 305Z" fill="#6b2d24"/></svg>`;
  return `data:image/svg+xml,${encodeURIComponent(svg)}`;
}

export default function MaskEditorTest({ loaderData }: Route.ComponentProps) {
  const { width, height } = loaderData;
  const [mask, setMask] = useState<File | null>(null);
  const [result, setResult] = useState({ version: 0, url: "" });
  const [image] = useState(() => ({ url: sceneOf(width, height), width, height }));
  const latest = useRef(0);
  const kept = useRef<File | null>(null);
  const show = (next: File | null) => {
    const turn = ++latest.current;
    if (!next) {
      setResult({ version: turn, url: "" });
      return;
    }
    const reader = new FileReader();
    reader.onload = () => {
      if (turn === latest.current) setResult({ version: turn, url: `${next.name}|${String(reader.result)}` });
    };
    reader.readAsDataURL(next);
  };
  return (
    <div className="studio-layout">
      <section className="studio-panel">
        <LazyMaskEditor
          image={image}
          value={mask}
          onChange={(next) => {
            setMask(next);
            show(next);
          }}
        />
      </section>
      <section>
        <output data-testid="mask-result" data-version={result.version} className="sr-only">
          {result.url}
        </output>
        {/* What a form does with the mask: forget it (a reset), or hand back one it kept (a draft restored). */}
        <div className="sr-only">
          <button type="button" data-testid="mask-keep" onClick={() => (kept.current = mask)}>
            keep
          </button>
          <button
            type="button"
            data-testid="mask-forget"
            onClick={() => {
              setMask(null);
              show(null);
            }}
          >
            forget
          </button>
          <button
            type="button"
            data-testid="mask-restore"
            onClick={() => {
              setMask(kept.current);
              show(kept.current);
            }}
          >
            restore
          </button>
        </div>
      </section>
    </div>
  );
}
