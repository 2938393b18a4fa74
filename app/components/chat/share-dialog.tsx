import { useState } from "react";
import { Button, Input, Modal, Space } from "antd";
import { CopyOutlined } from "#app/components/antd-icons.ts";
import { useTranslation } from "react-i18next";
import { useLocation } from "react-router";
import { useToast } from "#app/components/feedback.ts";
import { useCopy } from "#app/components/chat/markdown.tsx";
import { api } from "#app/lib/api.ts";
import { describeFailure } from "#app/lib/generations.ts";
import { formatDate } from "#common/format.ts";
import { hrefIn, type Locale } from "#common/locales.ts";

/**
 * Sharing a conversation as a read-only link: made up to the message shown now, shown once (only its hash is kept,
 * like an API key's), replaced by a new one, or stopped. The link opens in the language of the page it was made on.
 */
export function ShareDialog({
  conversationId,
  sharedAt,
  locale,
  open,
  onClose,
  onChanged,
}: {
  conversationId: string;
  sharedAt: Date | string | null;
  locale: Locale;
  open: boolean;
  onClose: () => void;
  onChanged: () => Promise<void>;
}) {
  const { t } = useTranslation("chat");
  const { pathname } = useLocation();
  const toast = useToast();
  const copy = useCopy();
  const [link, setLink] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const run = async (action: () => Promise<void>) => {
    setBusy(true);
    try {
      await action();
      await onChanged();
    } catch (error) {
      toast.error(describeFailure(error).message ?? t("common:msg.unknownError"));
    } finally {
      setBusy(false);
    }
  };
  const create = () =>
    run(async () => {
      const { share } = await api<{ share: { path: string } }>(`/chat/conversations/${conversationId}/share`, {
        method: "POST",
        headers: { "X-Locale": locale },
      });
      setLink(new URL(hrefIn(pathname, share.path), window.location.origin).href);
    });
  const stop = () =>
    run(async () => {
      await api(`/chat/conversations/${conversationId}/share`, { method: "DELETE", headers: { "X-Locale": locale } });
      setLink(null);
      toast.success(t("share.stopped"));
    });
  const close = () => {
    setLink(null);
    onClose();
  };

  return (
    <Modal open={open} title={t("share.title")} onCancel={close} footer={null} destroyOnHidden>
      <p>{t("share.text")}</p>
      {link ? (
        <>
          <label htmlFor="chat-share-link" className="chat-system-label">
            {t("share.link")}
          </label>
          <Space.Compact block>
            <Input id="chat-share-link" value={link} readOnly onFocus={(e) => e.currentTarget.select()} />
            <Button type="primary" icon={<CopyOutlined />} onClick={() => copy(link)}>
              {t("share.copy")}
            </Button>
          </Space.Compact>
          <p className="chat-share-note">{t("share.once")}</p>
        </>
      ) : sharedAt ? (
        <p className="chat-share-note">
          {t("share.since", { date: formatDate(locale, sharedAt, { dateOnly: true }) })}
        </p>
      ) : null}
      <div className="chat-share-actions">
        {sharedAt || link ? (
          <>
            <Button danger loading={busy} onClick={() => void stop()}>
              {t("share.stop")}
            </Button>
            <Button loading={busy} onClick={() => void create()} title={t("share.renewHelp")}>
              {t("share.renew")}
            </Button>
          </>
        ) : (
          <Button type="primary" loading={busy} onClick={() => void create()}>
            {t("share.create")}
          </Button>
        )}
      </div>
    </Modal>
  );
}
