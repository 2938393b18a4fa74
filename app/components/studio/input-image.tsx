import { useEffect, useEffectEvent, useRef, useState, type DragEvent } from "react";
import { Button, Empty, Input, Modal, Space, Spin } from "antd";
import { CloseOutlined, LinkOutlined, PictureOutlined, UploadOutlined } from "#app/components/antd-icons.ts";
import { useTranslation } from "react-i18next";
import { useToast } from "#app/components/feedback.ts";
import { describeFailure, listGenerations, uploadInputImage, type GenerationView } from "#app/lib/generations.ts";
import { usePageLocale } from "#app/components/studio/parts.tsx";

/** The input image of a tool: an uploaded or picked asset, or an https address to fetch. */
export interface InputImage {
  assetId?: string;
  url?: string;
  /** What to show: the asset's own URL or thumbnail, or nothing for an address (fetched by the server only). */
  preview?: string;
  label: string;
  /** The whole image in the app (an asset's own URL), for what is drawn over it at its size. */
  full?: string;
  /** Its size in pixels, when known (an address is read by the server only). */
  width?: number;
  height?: number;
}

/** An asset's size as an input image carries it. */
export const sizeOf = (asset: { width: number | null; height: number | null }) =>
  asset.width && asset.height ? { width: asset.width, height: asset.height } : {};

/** What an input image may be, checked before it is uploaded (the server checks again). */
export const INPUT_TYPES = ["image/png", "image/jpeg", "image/webp"];
const INPUT_MAX_BYTES = 10 * 1024 * 1024;

/** Why a file cannot be an input image, checked before it is uploaded (the message's key), or null when it can. */
export function inputFileProblem(file: File): string | null {
  if (!INPUT_TYPES.includes(file.type)) return "messages:generation.errors.inputInvalid";
  if (file.size > INPUT_MAX_BYTES) return "messages:generation.errors.inputTooLarge";
  return null;
}

/**
 * Where the input image comes from: drop a file on the zone, paste one, choose one, give an https address, or pick
 * one of the user's own results. Files are checked here for type and size, then uploaded (the server checks again,
 * re-encodes and strips metadata).
 */
export function InputImageField({
  value,
  onChange,
  invalid,
  takesPaste = true,
}: {
  value: InputImage | null;
  onChange: (value: InputImage | null) => void;
  invalid?: boolean;
  /** Whether an image pasted on the page comes here (one field of a form with two). */
  takesPaste?: boolean;
}) {
  const { t } = useTranslation("studio");
  const locale = usePageLocale();
  const toast = useToast();
  const fileInput = useRef<HTMLInputElement>(null);
  const [uploading, setUploading] = useState(false);
  const [dragging, setDragging] = useState(false);
  const [url, setUrl] = useState("");
  const [picking, setPicking] = useState(false);

  const take = async (file: File | undefined | null) => {
    if (!file) return;
    const problem = inputFileProblem(file);
    if (problem) {
      toast.error(t(problem));
      return;
    }
    setUploading(true);
    try {
      const upload = await uploadInputImage(file, locale);
      onChange({
        assetId: upload.id,
        preview: upload.url,
        full: upload.url,
        label: file.name || t("input.pasted"),
        ...sizeOf(upload),
      });
    } catch (error) {
      toast.error(describeFailure(error).message ?? t("input.uploadFailed"));
    } finally {
      setUploading(false);
    }
  };
  const takePasted = useEffectEvent((file: File) => void take(file));

  // A pasted image anywhere on the page becomes the input, unless the paste goes into a text field.
  useEffect(() => {
    if (!takesPaste) return;
    const onPaste = (e: ClipboardEvent) => {
      const target = e.target as HTMLElement | null;
      if (target && (target.tagName === "TEXTAREA" || target.tagName === "INPUT")) return;
      const file = Array.from(e.clipboardData?.files ?? []).find((f) => f.type.startsWith("image/"));
      if (file) {
        e.preventDefault();
        takePasted(file);
      }
    };
    window.addEventListener("paste", onPaste);
    return () => window.removeEventListener("paste", onPaste);
  }, [takesPaste]);

  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setDragging(false);
    void take(e.dataTransfer.files[0]);
  };

  const applyUrl = () => {
    const trimmed = url.trim();
    const parsed = URL.canParse(trimmed) ? new URL(trimmed) : null;
    if (!parsed || parsed.protocol !== "https:") {
      toast.error(t("messages:generation.errors.inputUrlRefused"));
      return;
    }
    onChange({ url: parsed.toString(), label: parsed.toString() });
    setUrl("");
  };

  if (value) {
    return (
      <div className="studio-input-chosen">
        {value.preview ? (
          <img src={value.preview} alt={t("input.previewAlt")} className="studio-input-preview" />
        ) : (
          <span className="studio-input-url-icon" aria-hidden>
            <LinkOutlined />
          </span>
        )}
        <span className="studio-input-label" title={value.label}>
          {value.label}
        </span>
        <Button icon={<CloseOutlined />} onClick={() => onChange(null)}>
          {t("input.remove")}
        </Button>
      </div>
    );
  }

  return (
    <div className="studio-input">
      <div
        className={`studio-dropzone${dragging ? " is-dragging" : ""}${invalid ? " is-invalid" : ""}`}
        onDragOver={(e) => {
          e.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={onDrop}
      >
        {uploading ? (
          <Spin />
        ) : (
          <>
            <PictureOutlined className="studio-dropzone-icon" aria-hidden />
            <p>{t("input.drop")}</p>
            <Space wrap>
              <Button icon={<UploadOutlined />} onClick={() => fileInput.current?.click()}>
                {t("input.choose")}
              </Button>
              <Button onClick={() => setPicking(true)}>{t("input.fromGallery")}</Button>
            </Space>
            <p className="studio-dropzone-hint">{t("input.limits")}</p>
          </>
        )}
        <input
          ref={fileInput}
          type="file"
          accept={INPUT_TYPES.join(",")}
          className="sr-only"
          tabIndex={-1}
          aria-label={t("input.choose")}
          data-testid="input-image-file"
          onChange={(e) => {
            void take(e.target.files?.[0]);
            e.target.value = "";
          }}
        />
      </div>
      <Space.Compact className="studio-input-url">
        <Input
          value={url}
          onChange={(e) => setUrl(e.target.value)}
          onPressEnter={(e) => {
            e.preventDefault();
            applyUrl();
          }}
          placeholder="https://…"
          aria-label={t("input.urlLabel")}
          inputMode="url"
        />
        <Button onClick={applyUrl} disabled={!url.trim()}>
          {t("input.useUrl")}
        </Button>
      </Space.Compact>
      <GalleryPicker
        open={picking}
        onClose={() => setPicking(false)}
        onPick={(g, asset) => {
          onChange({
            assetId: asset.id,
            preview: asset.thumbUrl ?? asset.url,
            full: asset.url,
            label: g.prompt,
            ...sizeOf(asset),
          });
          setPicking(false);
        }}
      />
    </div>
  );
}

/** The user's finished images to choose an input from. */
export function GalleryPicker({
  open,
  onClose,
  onPick,
}: {
  open: boolean;
  onClose: () => void;
  onPick: (g: GenerationView, asset: GenerationView["outputs"][number]) => void;
}) {
  const { t } = useTranslation("studio");
  const locale = usePageLocale();
  const [items, setItems] = useState<GenerationView[] | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    if (!open) return;
    let live = true;
    listGenerations({ kind: "image", status: "succeeded", limit: 48 }, locale)
      .then((page) => live && setItems(page.items))
      .catch(() => live && setFailed(true));
    return () => {
      live = false;
    };
  }, [open, locale]);
  return (
    <Modal
      open={open}
      onCancel={() => {
        setFailed(false);
        onClose();
      }}
      footer={null}
      title={t("input.fromGallery")}
      width={720}
    >
      {failed ? (
        <p role="alert">{t("messages:msg.generation.imageQueryFailed")}</p>
      ) : items === null ? (
        <Spin />
      ) : items.length === 0 ? (
        <Empty description={t("input.galleryEmpty")} />
      ) : (
        <ul className="studio-picker">
          {items.flatMap((g) =>
            g.outputs.map((asset) => (
              <li key={asset.id}>
                <button type="button" onClick={() => onPick(g, asset)} title={g.prompt}>
                  <img src={asset.thumbUrl ?? asset.url} alt={g.prompt} loading="lazy" />
                </button>
              </li>
            )),
          )}
        </ul>
      )}
    </Modal>
  );
}
