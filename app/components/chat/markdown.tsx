import { memo, useEffect, useMemo, useState, type MouseEvent } from "react";
import { useTranslation } from "react-i18next";
import { useToast } from "#app/components/feedback.ts";
import { extrasNeeded, loadExtras, renderChatMarkdown } from "#app/lib/chat-markdown.ts";
import { copyText } from "#app/lib/generations.ts";

/** Copies a text, saying whether it worked. */
export function useCopy() {
  const { t } = useTranslation("chat");
  const toast = useToast();
  return (text: string) =>
    void copyText(text).then((ok) => (ok ? toast.success(t("page.copied")) : toast.error(t("page.copyFailed"))));
}

/**
 * A message drawn from its Markdown (safe: see app/lib/chat-markdown.ts). Code highlighting and math are loaded
 * the first time a message needs them, then the message is drawn again with them; a code block's button copies it.
 */
export const Markdown = memo(function Markdown({ text }: { text: string }) {
  const { t } = useTranslation("chat");
  const copy = useCopy();
  const [extras, setExtras] = useState(0);
  const needed = extrasNeeded(text);
  const needsMore = needed.code || needed.math;
  useEffect(() => {
    if (!needsMore) return;
    let current = true;
    void loadExtras(extrasNeeded(text)).then(() => {
      if (current) setExtras((n) => n + 1);
    });
    return () => {
      current = false;
    };
  }, [needsMore, text]);
  const copyLabel = t("page.copyCode");
  // Drawn again when the text grows, or when highlighting or math arrived.
  const html = useMemo(() => renderChatMarkdown(text, copyLabel), [text, copyLabel, extras]); // eslint-disable-line react-hooks/exhaustive-deps
  const onClick = (e: MouseEvent<HTMLDivElement>) => {
    const button = (e.target as HTMLElement).closest<HTMLButtonElement>("[data-copy]");
    const code = button?.closest(".chat-code")?.querySelector("code")?.textContent;
    if (!button || code === undefined || code === null) return;
    copy(code);
  };
  // The HTML is markdown-it's with raw HTML escaped and links checked (see renderChatMarkdown).
  return <div className="chat-markdown" onClick={onClick} dangerouslySetInnerHTML={{ __html: html }} />;
});
