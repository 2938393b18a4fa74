import { Suspense, useRef, useState, type ComponentType } from "react";
import { Button, Spin } from "antd";
import { CloseOutlined, UploadOutlined } from "#app/components/antd-icons.ts";
import { useTranslation } from "react-i18next";
import { useToast } from "#app/components/feedback.ts";
import { usePageLocale } from "#app/components/studio/parts.tsx";
import { describeFailure, uploadInputImage } from "#app/lib/generations.ts";
import type { MaskEditorProps, MaskImage } from "#app/components/studio/mask-editor.tsx";

/**
 * A mask as the form holds it: the file it was made from, and once uploaded the asset sent as `maskAssetId`. A painted
 * mask is uploaded when the form is sent (not after every stroke); a chosen file at once.
 */
export interface MaskValue {
  assetId?: string;
  preview?: string;
  label: string;
  file: File;
  painted?: boolean;
}

export type { MaskEditorProps, MaskImage };

/**
 * The mask of an edit: painted in the `editor` when one is given, or a PNG file chosen by hand, white where the image
 * changes and black where it stays; uploaded as the user's private input (the server checks it has the image's shape).
 */
export function MaskField({
  image,
  value,
  onChange,
  invalid,
  editor: Editor,
}: {
  image: MaskImage | null;
  value: MaskValue | null;
  onChange: (value: MaskValue | null) => void;
  invalid?: boolean;
  /** The painted-mask editor (a lazy component), shown over the image once it is known. */
  editor?: ComponentType<MaskEditorProps>;
}) {
  const { t } = useTranslation("studio");
  const locale = usePageLocale();
  const toast = useToast();
  const fileInput = useRef<HTMLInputElement>(null);
  const [uploading, setUploading] = useState(false);

  /** A painted mask: kept in the form, uploaded when it is sent. */
  const painted = (file: File | null) => onChange(file ? { file, label: t("maskField.painted"), painted: true } : null);

  /** A chosen mask file: checked, uploaded, then handed to the form. */
  const take = async (file: File | null) => {
    if (!file) {
      onChange(null);
      return;
    }
    if (file.type !== "image/png") {
      toast.error(t("maskField.pngOnly"));
      return;
    }
    setUploading(true);
    try {
      const upload = await uploadInputImage(file, locale, { mask: true });
      onChange({ assetId: upload.id, preview: upload.url, label: file.name || t("maskField.painted"), file });
    } catch (error) {
      toast.error(describeFailure(error).message ?? t("input.uploadFailed"));
    } finally {
      setUploading(false);
    }
  };

  return (
    <div className={`studio-mask${invalid ? " is-invalid" : ""}`}>
      {Editor && image && (
        <Suspense fallback={<Spin />}>
          <Editor image={image} value={value?.file ?? null} onChange={painted} />
        </Suspense>
      )}
      {value?.painted ? null : value ? (
        <div className="studio-input-chosen">
          <img
            src={value.preview}
            alt={t("maskField.previewAlt")}
            className="studio-input-preview studio-mask-preview"
          />
          <span className="studio-input-label" title={value.label}>
            {value.label}
          </span>
          <Button icon={<CloseOutlined />} onClick={() => void take(null)}>
            {t("input.remove")}
          </Button>
        </div>
      ) : uploading ? (
        <Spin />
      ) : (
        <Button icon={<UploadOutlined />} onClick={() => fileInput.current?.click()} danger={invalid}>
          {t("maskField.choose")}
        </Button>
      )}
      <input
        ref={fileInput}
        type="file"
        accept="image/png"
        className="sr-only"
        tabIndex={-1}
        aria-label={t("maskField.choose")}
        data-testid="mask-file"
        onChange={(e) => {
          void take(e.target.files?.[0] ?? null);
          e.target.value = "";
        }}
      />
      <p className="studio-hint">{t("maskField.hint")}</p>
    </div>
  );
}
