import { useRef, useState } from "react";
import { Button, Dropdown, Tooltip } from "antd";
import { CloseOutlined, PaperClipOutlined } from "#app/components/antd-icons.ts";
import { useTranslation } from "react-i18next";
import { useToast } from "#app/components/feedback.ts";
import { GalleryPicker, INPUT_TYPES, inputFileProblem } from "#app/components/studio/input-image.tsx";
import { usePageLocale } from "#app/components/studio/parts.tsx";
import { describeFailure, uploadInputImage } from "#app/lib/generations.ts";
import { MAX_ATTACHMENTS } from "#config/chat-costs.ts";

/** An image a question will show: uploaded (with the studio's checks) or picked from the account's results. */
export interface Attachment {
  assetId: string;
  preview: string;
  label: string;
}

/**
 * Adds images to the question being written: a file (checked here for type and size, then uploaded, where the
 * server checks it again, re-encodes it and strips its metadata, as in the studio) or one of the account's own
 * results. Off, with the reason, for a model that takes no images.
 */
export function AttachButton({
  attachments,
  onChange,
  allowed,
}: {
  attachments: Attachment[];
  onChange: (next: Attachment[]) => void;
  allowed: boolean;
}) {
  const { t } = useTranslation(["chat", "studio"]);
  const locale = usePageLocale();
  const toast = useToast();
  const fileInput = useRef<HTMLInputElement>(null);
  const [uploading, setUploading] = useState(false);
  const [picking, setPicking] = useState(false);
  const full = attachments.length >= MAX_ATTACHMENTS;
  const add = (more: Attachment[]) => {
    const next = [...attachments, ...more.filter((a) => !attachments.some((b) => b.assetId === a.assetId))];
    if (next.length > MAX_ATTACHMENTS) toast.error(t("messages:chat.errors.tooManyImages", { max: MAX_ATTACHMENTS }));
    onChange(next.slice(0, MAX_ATTACHMENTS));
  };
  const take = async (files: File[]) => {
    const uploaded: Attachment[] = [];
    setUploading(true);
    try {
      for (const file of files.slice(0, MAX_ATTACHMENTS - attachments.length)) {
        const problem = inputFileProblem(file);
        if (problem) {
          toast.error(t(problem));
          continue;
        }
        const upload = await uploadInputImage(file, locale);
        uploaded.push({ assetId: upload.id, preview: upload.thumbUrl ?? upload.url, label: file.name });
      }
    } catch (error) {
      toast.error(describeFailure(error).message ?? t("studio:input.uploadFailed"));
    } finally {
      setUploading(false);
      if (uploaded.length > 0) add(uploaded);
    }
  };

  const button = (
    <Button
      className="chat-attach"
      shape="circle"
      icon={<PaperClipOutlined />}
      aria-label={t("page.attach")}
      loading={uploading}
      disabled={!allowed || full}
    />
  );
  return (
    <>
      {allowed && !full ? (
        <Dropdown
          trigger={["click"]}
          menu={{
            items: [
              { key: "upload", label: t("page.upload"), onClick: () => fileInput.current?.click() },
              { key: "gallery", label: t("studio:input.fromGallery"), onClick: () => setPicking(true) },
            ],
          }}
        >
          {button}
        </Dropdown>
      ) : (
        <Tooltip
          title={allowed ? t("messages:chat.errors.tooManyImages", { max: MAX_ATTACHMENTS }) : t("page.noImages")}
        >
          {button}
        </Tooltip>
      )}
      <input
        ref={fileInput}
        type="file"
        multiple
        accept={INPUT_TYPES.join(",")}
        className="sr-only"
        tabIndex={-1}
        aria-label={t("page.upload")}
        data-testid="chat-attach-file"
        onChange={(e) => {
          void take(Array.from(e.target.files ?? []));
          e.target.value = "";
        }}
      />
      <GalleryPicker
        open={picking}
        onClose={() => setPicking(false)}
        onPick={(g, asset) => {
          add([{ assetId: asset.id, preview: asset.thumbUrl ?? asset.url, label: g.prompt }]);
          setPicking(false);
        }}
      />
    </>
  );
}

/** The images of the question being written, each with a button that takes it off. */
export function AttachmentChips({
  attachments,
  onChange,
}: {
  attachments: Attachment[];
  onChange: (next: Attachment[]) => void;
}) {
  const { t } = useTranslation("chat");
  if (attachments.length === 0) return null;
  return (
    <ul className="chat-attachments" aria-label={t("page.attached")}>
      {attachments.map((a) => (
        <li key={a.assetId}>
          <img src={a.preview} alt={a.label} />
          <button
            type="button"
            className="chat-attachment-remove"
            aria-label={t("page.removeImage", { name: a.label })}
            onClick={() => onChange(attachments.filter((b) => b.assetId !== a.assetId))}
          >
            <CloseOutlined aria-hidden />
          </button>
        </li>
      ))}
    </ul>
  );
}

/** The images a question shows, each opening in full size. */
export function QuestionImages({ urls, label }: { urls: string[]; label: string }) {
  if (urls.length === 0) return null;
  return (
    <ul className="chat-question-images">
      {urls.map((url) => (
        <li key={url}>
          <a href={url} target="_blank" rel="noreferrer">
            <img src={url} alt={label} loading="lazy" />
          </a>
        </li>
      ))}
    </ul>
  );
}
