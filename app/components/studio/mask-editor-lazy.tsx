import { lazy, Suspense } from "react";
import { useTranslation } from "react-i18next";
import type { MaskEditorProps } from "#app/components/studio/mask-editor.tsx";

// Its own chunk, fetched when a form first shows it: the pages that never do load none of it.
const MaskEditor = lazy(() => import("#app/components/studio/mask-editor.tsx"));

/**
 * The mask editor, loaded when it is first shown. Until then the image stands where the editor will, at the size the
 * editor gives it, so nothing moves when it arrives.
 */
export function LazyMaskEditor(props: MaskEditorProps) {
  return (
    <Suspense fallback={<MaskEditorPlaceholder {...props} />}>
      <MaskEditor {...props} />
    </Suspense>
  );
}

function MaskEditorPlaceholder({ image }: MaskEditorProps) {
  const { t } = useTranslation("studio");
  const { url, width, height } = image;
  return (
    <div className="mask-editor is-loading" aria-busy="true">
      <div className="mask-editor-toolbar" />
      <p className="mask-editor-hint">{t("mask.loading")}</p>
      <div
        className="mask-editor-stage"
        style={{ aspectRatio: `${width} / ${height}`, width: `min(100%, calc(70vh * ${width / height}))` }}
      >
        <img src={url} alt={t("mask.imageAlt")} width={width} height={height} draggable={false} />
      </div>
    </div>
  );
}
