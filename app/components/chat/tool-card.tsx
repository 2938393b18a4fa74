import { useEffect, useState } from "react";
import { Alert, Button, Tag } from "antd";
import { PictureOutlined, VideoCameraOutlined } from "#app/components/antd-icons.ts";
import { useTranslation } from "react-i18next";
import { Link, useLocation } from "react-router";
import { useToast } from "#app/components/feedback.ts";
import { DemoNotice, usePageLocale } from "#app/components/studio/parts.tsx";
import { api } from "#app/lib/api.ts";
import { refreshCredits } from "#app/lib/refresh-credits.ts";
import { describeFailure, fetchGeneration, isOpen, resultPath, type GenerationView } from "#app/lib/generations.ts";
import { formatNumber } from "#common/format.ts";
import { hrefIn } from "#common/locales.ts";
import { kindOfTool, type GenerationTool } from "#common/tools.ts";
import type { ChatToolOutput, ChatToolSource } from "#server/modules/chat/tools.ts";

/** A tool call of an answer as the page has it: the AI SDK's tool part, with what the call did. */
export interface ToolPartView {
  type: string;
  toolCallId: string;
  output?: ChatToolOutput;
}

/** How often a generation the chat started is read again while it runs. */
const POLL_MS = 2_000;

/**
 * What a tool call of the chat did, in the answer: the image or video it started (its status, then the result,
 * linked to its page), the confirmation it waits for (its cost; nothing is spent before), or why it did not start.
 * `messageId` is the answer's once it is saved (a call is confirmed on a saved answer only).
 */
export function ToolCard({
  part,
  messageId,
  onSettled,
}: {
  part: ToolPartView;
  messageId?: string;
  onSettled?: () => Promise<void>;
}) {
  const { t } = useTranslation(["chat", "studio"]);
  const locale = usePageLocale();
  const toast = useToast();
  const [busy, setBusy] = useState(false);
  const output = part.output;
  if (!output) return null;
  if (output.status === "refused")
    return (
      <Alert type="warning" showIcon className="chat-tool" title={t("tools.refused", { reason: output.message })} />
    );
  const video = kindOfTool(output.tool) === "video";
  const icon = video ? <VideoCameraOutlined aria-hidden /> : <PictureOutlined aria-hidden />;
  const name = output.variation
    ? t("tools.variation")
    : t(`tools.names.${output.tool}`, { defaultValue: t(video ? "tools.video" : "tools.image") });
  const head = (
    <header className="chat-tool-head">
      {icon}
      <strong>{name}</strong>
      <span className="chat-tool-model">{output.model}</span>
      <span className="chat-cost">
        {t("page.cost", { count: output.cost, formatted: formatNumber(locale, output.cost) })}
      </span>
    </header>
  );
  if (output.status === "started")
    return (
      <section className="chat-tool" aria-label={name}>
        {head}
        {output.from && <MadeFrom from={output.from} />}
        <StartedGeneration id={output.generationId} />
      </section>
    );

  const settle = async (confirm: boolean) => {
    if (!messageId) return;
    setBusy(true);
    try {
      await api(`/chat/messages/${messageId}/tools/${part.toolCallId}`, {
        method: "POST",
        body: { confirm },
        headers: { "X-Locale": locale },
      });
      if (confirm) void refreshCredits();
      await onSettled?.();
    } catch (error) {
      toast.error(describeFailure(error).message ?? t("common:msg.unknownError"));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="chat-tool" aria-label={name}>
      {head}
      {output.prompt && <p className="chat-tool-prompt">{output.prompt}</p>}
      {output.from && <MadeFrom from={output.from} />}
      {output.status === "declined" ? (
        <p className="chat-tool-note">{t("tools.declined")}</p>
      ) : (
        <>
          <p className="chat-tool-note">
            {t("tools.confirm", { count: output.cost, formatted: formatNumber(locale, output.cost) })}
          </p>
          <div className="chat-tool-actions">
            <Button type="primary" loading={busy} disabled={!messageId} onClick={() => void settle(true)}>
              {t("tools.generate")}
            </Button>
            <Button disabled={busy || !messageId} onClick={() => void settle(false)}>
              {t("tools.decline")}
            </Button>
          </div>
        </>
      )}
    </section>
  );
}

/** The image a tool call started from, linked to the result it came out of (or to the image itself). */
function MadeFrom({ from }: { from: ChatToolSource }) {
  const { t } = useTranslation("chat");
  const { pathname } = useLocation();
  const link = from.generationId && from.tool ? hrefIn(pathname, sourcePath(from.generationId, from.tool)) : from.url;
  return (
    <p className="chat-tool-from">
      <span>{t("tools.madeFrom")}</span>
      <Link to={link} reloadDocument={!from.generationId} className="chat-tool-from-link">
        <img src={from.thumbUrl ?? from.url} alt={t("tools.madeFrom")} loading="lazy" width={40} height={40} />
      </Link>
    </p>
  );
}

const sourcePath = (id: string, tool: GenerationTool) => resultPath({ id, tool });

/** A generation the chat started: read once the page runs, then again while it runs; its result once it has one. */
function StartedGeneration({ id }: { id: string }) {
  const { t } = useTranslation(["chat", "studio"]);
  const locale = usePageLocale();
  const { pathname } = useLocation();
  const [generation, setGeneration] = useState<GenerationView | null>(null);
  useEffect(() => {
    let current = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const read = async () => {
      const g = await fetchGeneration(id, locale).catch(() => null);
      if (!current) return;
      if (g) setGeneration(g);
      if (!g || isOpen(g)) timer = setTimeout(() => void read(), POLL_MS);
      // Finished: the hold became a charge (or was returned).
      else void refreshCredits();
    };
    void read();
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [id, locale]);

  if (!generation)
    return (
      <div className="chat-tool-media chat-tool-waiting" aria-busy="true">
        <span className="sr-only">{t("studio:progress.queued")}</span>
      </div>
    );
  const link = hrefIn(pathname, resultPath(generation));
  if (generation.status === "failed" || generation.status === "canceled")
    return <Alert type="error" showIcon className="chat-alert" title={t("tools.failed")} />;
  if (isOpen(generation))
    return (
      <div className="chat-tool-media chat-tool-waiting" aria-busy="true">
        <Tag>{t(`studio:status.${generation.status}`)}</Tag>
      </div>
    );
  const media = generation.outputs[0];
  // A cut-out is shown whole (its thumbnail may be flattened) on a checkerboard, where its transparency shows.
  const transparent = generation.tool === "remove-background";
  return (
    <div className="chat-tool-result">
      {media?.mimeType.startsWith("video/") ? (
        <div className="chat-tool-media">
          <video src={media.url} poster={media.thumbUrl ?? undefined} controls playsInline preload="metadata" />
        </div>
      ) : media ? (
        <Link
          to={link}
          className={transparent ? "chat-tool-media chat-tool-checker" : "chat-tool-media"}
          aria-label={t("tools.open")}
        >
          <img
            src={transparent ? media.url : (media.thumbUrl ?? media.url)}
            alt={generation.prompt || (transparent ? t("tools.transparent") : t("tools.open"))}
            loading="lazy"
          />
        </Link>
      ) : null}
      <Link to={link}>{t("tools.open")} →</Link>
      {generation.model.offline && <DemoNotice />}
    </div>
  );
}
