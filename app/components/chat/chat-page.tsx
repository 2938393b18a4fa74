import { useEffect, useRef, useState, type FormEvent, type KeyboardEvent, type ReactNode } from "react";
import { Alert, Button, Drawer, Dropdown, Input, Modal, Select, Tag, Tooltip } from "antd";
import {
  ArrowUpOutlined,
  BorderOutlined,
  CopyOutlined,
  DownloadOutlined,
  EditOutlined,
  LeftOutlined,
  MenuOutlined,
  ReloadOutlined,
  RightOutlined,
  SettingOutlined,
  ShareAltOutlined,
  StepForwardOutlined,
  WalletOutlined,
} from "#app/components/antd-icons.ts";
import { useTranslation } from "react-i18next";
import { Link, useLocation, useNavigate, useRevalidator } from "react-router";
import { RedeemCard, type RedeemResult } from "#app/components/billing/redeem-card.tsx";
import { useToast } from "#app/components/feedback.ts";
import { Markdown, useCopy } from "#app/components/chat/markdown.tsx";
import { endedIn, useAnswer, type Live, type Refusal } from "#app/components/chat/use-answer.ts";
import { ShareDialog } from "#app/components/chat/share-dialog.tsx";
import { ToolCard, type ToolPartView } from "#app/components/chat/tool-card.tsx";
import { AttachButton, AttachmentChips, QuestionImages, type Attachment } from "#app/components/chat/attachments.tsx";
import { ConversationList, type ConversationItem, type FolderItem } from "#app/components/chat/conversation-list.tsx";
import { OfflineTag, usePageLocale } from "#app/components/studio/parts.tsx";
import { api } from "#app/lib/api.ts";
import { useAvailableCredits } from "#app/lib/credits.ts";
import { describeFailure } from "#app/lib/generations.ts";
import {
  answerSummary,
  branchOf,
  leafFrom,
  siblingsOf,
  textOf,
  turnsOf,
  type ChatMessageView,
  type Turn,
} from "#app/lib/chat-tree.ts";
import { answerPlan, estimateInput, type ChatPrice } from "#config/chat-costs.ts";
import { formatNumber } from "#common/format.ts";
import { hrefIn } from "#common/locales.ts";

export interface ChatModelView {
  id: string;
  name: string;
  price: ChatPrice;
  maxOutputTokens: number;
  vision: boolean;
  tools: boolean;
  offline: boolean;
}

interface Opened {
  conversation: {
    id: string;
    title: string | null;
    modelId: string;
    systemPrompt: string | null;
    leafId: string | null;
    sharedAt: Date | string | null;
  };
  messages: ChatMessageView[];
}

/** The longest question, as the server checks it. */
const MAX_QUESTION = 8_000;

/**
 * The chat: the conversation list (a drawer on a phone) beside the conversation shown, or a new one.
 */
export function ChatPage({
  q,
  conversations,
  folders,
  opened,
  models,
  redeemAnswer,
}: {
  q: string;
  conversations: ConversationItem[];
  folders: FolderItem[];
  opened: Opened | null;
  models: ChatModelView[];
  redeemAnswer?: RedeemResult;
}) {
  const { t } = useTranslation("chat");
  const [drawer, setDrawer] = useState(false);
  const currentId = opened?.conversation.id ?? null;
  const list = (onNavigate?: () => void) => (
    <ConversationList
      conversations={conversations}
      folders={folders}
      q={q}
      currentId={currentId}
      onNavigate={onNavigate}
    />
  );
  return (
    <div className="chat">
      <aside className="chat-side">{list()}</aside>
      <Drawer
        className="chat-drawer"
        placement="left"
        size={300}
        open={drawer}
        onClose={() => setDrawer(false)}
        title={t("page.conversations")}
      >
        {list(() => setDrawer(false))}
      </Drawer>
      <Thread opened={opened} models={models} redeemAnswer={redeemAnswer} onOpenList={() => setDrawer(true)} />
    </div>
  );
}

function Thread({
  opened,
  models,
  redeemAnswer,
  onOpenList,
}: {
  opened: Opened | null;
  models: ChatModelView[];
  redeemAnswer?: RedeemResult;
  onOpenList: () => void;
}) {
  const { t } = useTranslation("chat");
  const locale = usePageLocale();
  const toast = useToast();
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const revalidator = useRevalidator();
  const available = useAvailableCredits();
  const conversation = opened?.conversation ?? null;
  const messages = opened?.messages ?? [];

  // A conversation created here by the first question: the navigation to it keeps the answer being written shown.
  const [createdId, setCreatedId] = useState<string | null>(null);
  const created = useRef<string | null>(null);
  const shownId = conversation?.id ?? createdId;
  const answer = useAnswer({ locale, onEnded: () => revalidator.revalidate() });
  const { leave, reconnect, hasEnded } = answer;
  const displayed = conversation?.id ?? null;
  useEffect(() => {
    if (displayed === null || displayed !== created.current) leave();
  }, [displayed, leave]);

  // The branch shown: the conversation's, until `< 2 / 3 >` picks another.
  const [leafId, setLeafId] = useState(conversation?.leafId ?? null);
  const [seen, setSeen] = useState(opened);
  if (opened !== seen) {
    setSeen(opened);
    setLeafId(opened?.conversation.leafId ?? null);
  }
  const [newModel, setNewModel] = useState(models.find((m) => !m.offline)?.id ?? models[0]?.id ?? "");
  const [newSystem, setNewSystem] = useState("");
  const [draft, setDraft] = useState("");
  const [attachments, setAttachments] = useState<Attachment[]>([]);
  const [settingsOpen, setSettingsOpen] = useState(false);
  const [shareOpen, setShareOpen] = useState(false);
  const [editing, setEditing] = useState<{ id: string; text: string } | null>(null);
  const [failure, setFailure] = useState<Refusal | null>(null);

  const live: Live | null =
    answer.live && answer.live.conversationId === shownId && !endedIn(messages, answer.live.answerId)
      ? answer.live
      : null;
  const branch = live ? branchOf(messages, live.base) : branchOf(messages, leafId);
  const turns = turnsOf(branch);
  const lastTurn = turns.at(-1);
  const modelId = conversation?.modelId ?? newModel;
  const model = models.find((m) => m.id === modelId);
  const system = conversation ? (conversation.systemPrompt ?? "") : newSystem;
  const busy = answer.busy || live !== null;
  const refusal = answer.refusal ?? failure;

  // An answer still being written when the page opened (a refresh, another tab): shown as it goes on.
  const lastMessage = branch.at(-1);
  const streaming =
    !live && lastMessage?.role === "assistant" && lastMessage.status === "streaming" ? lastMessage : null;
  useEffect(() => {
    if (!streaming || !conversation || hasEnded(streaming.id)) return;
    void reconnect(conversation.id, streaming.parentId, streaming.id);
    // Only when another answer is found streaming.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [streaming?.id]);

  // Esc stops the answer being written, wherever the focus is.
  const stop = answer.stop;
  useEffect(() => {
    if (!busy) return;
    const onKey = (e: globalThis.KeyboardEvent) => {
      if (e.key === "Escape" && !document.querySelector(".ant-modal-wrap")) void stop();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [busy, stop]);

  // Follows the answer as it grows, unless the reader scrolled up to read.
  const liveText = live?.text ?? "";
  useEffect(() => {
    if (!liveText) return;
    const nearBottom = window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 160;
    if (nearBottom) window.scrollTo({ top: document.documentElement.scrollHeight });
  }, [liveText]);

  const texts = modelTexts(turns);
  const plan = model
    ? answerPlan(
        model,
        estimateInput(system || undefined, [...texts, draft], model.vision ? attachments.length : 0),
        available ?? Infinity,
        model.tools,
      )
    : null;
  const unanswered = lastTurn?.kind === "question" && !live;

  const chatPath = (id: string) => hrefIn(pathname, `/dashboard/chat/${id}`);

  const send = async (e?: FormEvent) => {
    e?.preventDefault();
    const text = draft.trim();
    if (!text || busy || !model) return;
    if (text.length > MAX_QUESTION) {
      setFailure({
        code: "chat_message_invalid",
        message: t("messages:chat.errors.messageLength", { max: MAX_QUESTION }),
      });
      return;
    }
    setFailure(null);
    let id = conversation?.id;
    if (!id) {
      try {
        const created = await api<{ conversation: { id: string } }>("/chat/conversations", {
          method: "POST",
          body: { model: model.id, ...(newSystem.trim() && { systemPrompt: newSystem.trim() }) },
          headers: { "X-Locale": locale },
        });
        id = created.conversation.id;
      } catch (error) {
        setFailure(describeFailure(error));
        return;
      }
      created.current = id;
      setCreatedId(id);
    }
    setDraft("");
    setAttachments([]);
    const base = branch.at(-1)?.id ?? null;
    const asked = answer.ask(id, base, text, base, attachments);
    if (!conversation) void navigate(chatPath(id), { preventScrollReset: true });
    await asked;
  };

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    // Enter sends, Shift+Enter starts a new line; a word being composed (Chinese, Japanese, Korean) is not sent.
    if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      void send();
    }
  };

  const showBranch = (id: string) => {
    if (!conversation || busy) return;
    const leaf = leafFrom(messages, id);
    setLeafId(leaf);
    void api(`/chat/conversations/${conversation.id}`, { method: "PATCH", body: { leafId: leaf } }).catch(() => {
      // The branch is shown here; the next visit opens the one saved before.
    });
  };

  const saveEdit = async (question: ChatMessageView, rerun: boolean) => {
    if (!conversation || !editing) return;
    const text = editing.text.trim();
    if (!text) return;
    setEditing(null);
    // The edited question shows the same images.
    const images = imagesOf(question).map(({ assetId, url }) => ({ assetId, preview: url, label: "" }));
    if (rerun) {
      await answer.ask(conversation.id, question.parentId, text, question.parentId, images);
      return;
    }
    try {
      await api(`/chat/conversations/${conversation.id}/messages`, {
        method: "POST",
        body: { text, parentId: question.parentId, answer: false, attachments: images.map((a) => a.assetId) },
        headers: { "X-Locale": locale },
      });
      await revalidator.revalidate();
    } catch (error) {
      setFailure(describeFailure(error));
    }
  };

  const changeConversation = async (body: object) => {
    if (!conversation) return;
    try {
      await api(`/chat/conversations/${conversation.id}`, { method: "PATCH", body, headers: { "X-Locale": locale } });
      await revalidator.revalidate();
    } catch (error) {
      toast.error(describeFailure(error).message ?? t("common:msg.unknownError"));
    }
  };

  /** After a top-up: the cut answer goes on, or the question left unanswered is answered. */
  const resume = () => {
    if (!conversation || busy || !lastTurn) return;
    setFailure(null);
    answer.clearRefusal();
    if (lastTurn.kind === "question") void answer.regenerate(conversation.id, lastTurn.message.id, lastTurn.message.id);
    else void answer.continueAnswer(conversation.id, lastTurn.messages.at(-1)!.id);
  };
  const outOfCredits =
    !live &&
    ((lastTurn?.kind === "answer" && lastTurn.messages.at(-1)!.status === "out_of_credits") ||
      refusal?.code === "insufficient_credits");

  return (
    <section className="chat-main" aria-label={conversation?.title ?? t("page.newChat")}>
      <header className="chat-head">
        <Button
          className="chat-list-button"
          icon={<MenuOutlined />}
          aria-label={t("page.conversations")}
          onClick={onOpenList}
        />
        <h1 className="chat-title">{conversation?.title ?? t("page.newChat")}</h1>
        <label htmlFor="chat-model" className="sr-only">
          {t("page.model")}
        </label>
        <Select
          id="chat-model"
          className="chat-model"
          value={modelId}
          disabled={busy}
          popupMatchSelectWidth={false}
          // The chosen model by its name alone; the list says which ones run offline.
          labelRender={({ value }) => models.find((m) => m.id === value)?.name ?? String(value)}
          options={models.map((m) => ({
            value: m.id,
            label: (
              <span className="chat-model-option">
                {m.name}
                {m.offline && <OfflineTag />}
              </span>
            ),
          }))}
          onChange={(value) => (conversation ? void changeConversation({ model: value }) : setNewModel(value))}
        />
        <Tooltip title={t("page.instructions")}>
          <Button
            icon={<SettingOutlined />}
            aria-label={t("page.instructions")}
            onClick={() => setSettingsOpen(true)}
            type={system ? "primary" : "default"}
            ghost={Boolean(system)}
          />
        </Tooltip>
        {conversation && (
          <>
            <Tooltip title={t("share.title")}>
              <Button
                icon={<ShareAltOutlined />}
                aria-label={t("share.title")}
                onClick={() => setShareOpen(true)}
                type={conversation.sharedAt ? "primary" : "default"}
                ghost={Boolean(conversation.sharedAt)}
              />
            </Tooltip>
            <Dropdown
              trigger={["click"]}
              menu={{
                items: (["markdown", "json"] as const).map((format) => ({
                  key: format,
                  label: t(format === "json" ? "export.json" : "export.markdown"),
                })),
                // A download: the browser saves the file and stays on the page (with the keyboard as well).
                onClick: ({ key }) =>
                  window.location.assign(
                    `/api/chat/conversations/${conversation.id}/export?format=${key}&locale=${locale}`,
                  ),
              }}
            >
              <Button icon={<DownloadOutlined />} aria-label={t("export.title")} />
            </Dropdown>
            <ShareDialog
              conversationId={conversation.id}
              sharedAt={conversation.sharedAt}
              locale={locale}
              open={shareOpen}
              onClose={() => setShareOpen(false)}
              onChanged={() => revalidator.revalidate()}
            />
          </>
        )}
      </header>

      <div className="chat-thread" aria-live="off">
        {turns.length === 0 && !live && (
          <div className="chat-empty">
            <h2>{t("page.emptyTitle")}</h2>
            <p>{model?.offline ? t("page.emptyOffline") : t("page.emptyText")}</p>
            <ul className="chat-suggestions">
              {(t("page.suggestions", { returnObjects: true }) as unknown as string[]).map((s) => (
                <li key={s}>
                  <Button onClick={() => setDraft(s)}>{s}</Button>
                </li>
              ))}
            </ul>
          </div>
        )}
        {turns.map((turn, i) => {
          const isLast = i === turns.length - 1;
          if (turn.kind === "question") {
            const question = turn.message;
            return (
              <QuestionView
                key={question.id}
                question={question}
                siblings={siblingsOf(messages, question)}
                editing={editing?.id === question.id ? editing.text : null}
                busy={busy}
                onEdit={(text) => setEditing(text === null ? null : { id: question.id, text })}
                onSave={(rerun) => void saveEdit(question, rerun)}
                onPick={showBranch}
                onAnswer={
                  isLast && !live && conversation
                    ? () => void answer.regenerate(conversation.id, question.id, question.id)
                    : undefined
                }
              />
            );
          }
          const continuing = isLast && continues(live, turn) ? live : null;
          return (
            <AnswerView
              key={turn.head.id}
              turn={turn}
              live={continuing}
              siblings={siblingsOf(messages, turn.head)}
              busy={busy}
              onPick={showBranch}
              onRegenerate={
                conversation && !busy
                  ? () => void answer.regenerate(conversation.id, turn.head.parentId!, turn.head.id)
                  : undefined
              }
              onContinue={
                conversation && isLast && !busy && ["stopped", "out_of_credits"].includes(turn.messages.at(-1)!.status)
                  ? () => void answer.continueAnswer(conversation.id, turn.messages.at(-1)!.id)
                  : undefined
              }
            />
          );
        })}
        {live && live.question !== undefined && (
          <article className="chat-msg chat-question">
            <QuestionImages urls={live.images} label={t("page.attached")} />
            <div className="chat-question-text">{live.question}</div>
          </article>
        )}
        {live && !(lastTurn && continues(live, lastTurn)) && (
          <article className="chat-msg chat-answer" aria-busy="true">
            {live.text ? <Markdown text={live.text} /> : live.tools.length === 0 && <Writing />}
            {live.tools.map((part) => (
              <ToolCard key={part.toolCallId} part={part} />
            ))}
          </article>
        )}
        {outOfCredits && conversation && <OutOfCredits redeemAnswer={redeemAnswer} onContinue={resume} />}
        {refusal && refusal.code !== "insufficient_credits" && (
          <Alert
            type="error"
            showIcon
            role="alert"
            className="chat-alert"
            title={refusal.message ?? t("page.sendFailed")}
            action={
              refusal.code === "plan_required" ? (
                <Link to={hrefIn(pathname, "/pricing")}>{t("page.seePlans")}</Link>
              ) : undefined
            }
            closable={{ onClose: () => (setFailure(null), answer.clearRefusal()) }}
          />
        )}
      </div>

      <form className="chat-composer" onSubmit={(e) => void send(e)}>
        <AttachmentChips attachments={attachments} onChange={setAttachments} />
        <AttachButton
          attachments={attachments}
          onChange={setAttachments}
          allowed={Boolean(model && (model.vision || model.tools)) && !unanswered}
        />
        <label htmlFor="chat-input" className="sr-only">
          {t("page.message")}
        </label>
        <Input.TextArea
          id="chat-input"
          name="text"
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={onKeyDown}
          placeholder={unanswered ? t("page.answerFirst") : t("page.placeholder")}
          autoSize={{ minRows: 1, maxRows: 10 }}
          maxLength={MAX_QUESTION}
          disabled={unanswered}
          aria-describedby="chat-estimate"
        />
        {busy ? (
          <Button
            className="chat-send"
            shape="circle"
            icon={<BorderOutlined />}
            aria-label={t("page.stop")}
            title={t("page.stopHint")}
            disabled={!live?.answerId}
            onClick={() => void answer.stop()}
          />
        ) : (
          <Button
            className="chat-send"
            type="primary"
            shape="circle"
            htmlType="submit"
            icon={<ArrowUpOutlined />}
            aria-label={t("page.send")}
            disabled={!draft.trim() || unanswered || !model}
          />
        )}
        <p id="chat-estimate" className="chat-estimate" aria-live="polite">
          {!model
            ? t("page.noModel")
            : plan === null
              ? t("page.estimateShort")
              : t(plan.limitedByCredits ? "page.estimateLimited" : "page.estimate", {
                  count: plan.credits,
                  formatted: formatNumber(locale, plan.credits),
                })}
          <span className="chat-keys">{t("page.keys")}</span>
        </p>
      </form>

      <Modal
        open={settingsOpen}
        title={t("page.instructions")}
        okText={t("page.save")}
        cancelText={t("page.cancel")}
        onCancel={() => setSettingsOpen(false)}
        destroyOnHidden
        onOk={async () => {
          const value = (document.getElementById("chat-system") as HTMLTextAreaElement | null)?.value ?? "";
          if (conversation) await changeConversation({ systemPrompt: value.trim() || null });
          else setNewSystem(value);
          setSettingsOpen(false);
        }}
      >
        <label htmlFor="chat-system" className="chat-system-label">
          {t("page.instructionsHelp")}
        </label>
        <Input.TextArea
          id="chat-system"
          defaultValue={system}
          maxLength={4000}
          autoSize={{ minRows: 4, maxRows: 12 }}
        />
      </Modal>
    </section>
  );
}

/** The images a question shows: their assets and addresses. */
function imagesOf(question: ChatMessageView): { assetId: string; url: string }[] {
  return question.parts.flatMap((p) =>
    p.type === "file" && "url" in p && "assetId" in p ? [{ assetId: String(p.assetId), url: String(p.url) }] : [],
  );
}

type Segment = { kind: "text"; text: string } | { kind: "tool"; part: ToolPartView; messageId?: string };

/**
 * An answer as it reads: its texts (an answer's continuations run on from where it was cut) and, between them,
 * the tools it called; then what is being written now.
 */
function segmentsOf(messages: ChatMessageView[], live: Live | null): Segment[] {
  const segments: Segment[] = [];
  const addText = (text: string) => {
    if (!text) return;
    const last = segments.at(-1);
    if (last?.kind === "text") last.text += text;
    else segments.push({ kind: "text", text });
  };
  for (const m of messages)
    for (const part of m.parts) {
      if (part.type === "text") addText(typeof part.text === "string" ? part.text : "");
      else if (part.type.startsWith("tool-"))
        segments.push({ kind: "tool", part: part as unknown as ToolPartView, messageId: m.id });
    }
  if (live) {
    addText(live.text);
    for (const part of live.tools) segments.push({ kind: "tool", part });
  }
  return segments;
}

/** Whether the answer being written continues this answer (rather than following it, as a new question's does). */
function continues(live: Live | null, turn: Turn): boolean {
  return (
    live !== null && live.question === undefined && turn.kind === "answer" && live.base === turn.messages.at(-1)!.id
  );
}

/** The texts of the branch as the model reads them (an answer with its continuations is one). */
function modelTexts(turns: Turn[]): string[] {
  return turns.map((turn) => (turn.kind === "question" ? textOf(turn.message) : answerSummary(turn.messages).text));
}

function Writing() {
  const { t } = useTranslation("chat");
  return (
    <p className="chat-writing">
      <span className="chat-dots" aria-hidden>
        <i />
        <i />
        <i />
      </span>
      {t("page.writing")}
    </p>
  );
}

/** `< 2 / 3 >` between a message's versions. */
function SiblingNav({
  siblings,
  current,
  disabled,
  onPick,
}: {
  siblings: ChatMessageView[];
  current: string;
  disabled: boolean;
  onPick: (id: string) => void;
}) {
  const { t } = useTranslation("chat");
  if (siblings.length < 2) return null;
  const index = siblings.findIndex((s) => s.id === current);
  return (
    <span className="chat-siblings" role="group" aria-label={t("page.versions")}>
      <IconAction
        icon={<LeftOutlined />}
        label={t("page.previousVersion")}
        disabled={disabled || index <= 0}
        onClick={() => onPick(siblings[index - 1]!.id)}
      />
      <span className="chat-siblings-count">{t("page.version", { current: index + 1, total: siblings.length })}</span>
      <IconAction
        icon={<RightOutlined />}
        label={t("page.nextVersion")}
        disabled={disabled || index >= siblings.length - 1}
        onClick={() => onPick(siblings[index + 1]!.id)}
      />
    </span>
  );
}

/** A small action of a message: an icon, named by its label (read out, and shown on hover). */
function IconAction({
  icon,
  label,
  disabled,
  onClick,
}: {
  icon: ReactNode;
  label: string;
  disabled?: boolean;
  onClick: () => void;
}) {
  return (
    <Button
      type="text"
      size="small"
      icon={icon}
      aria-label={label}
      title={label}
      disabled={disabled}
      onClick={onClick}
    />
  );
}

function CopyButton({ text }: { text: string }) {
  const { t } = useTranslation("chat");
  const copy = useCopy();
  return <IconAction icon={<CopyOutlined />} label={t("page.copy")} onClick={() => copy(text)} />;
}

function QuestionView({
  question,
  siblings,
  editing,
  busy,
  onEdit,
  onSave,
  onPick,
  onAnswer,
}: {
  question: ChatMessageView;
  siblings: ChatMessageView[];
  editing: string | null;
  busy: boolean;
  onEdit: (text: string | null) => void;
  onSave: (rerun: boolean) => void;
  onPick: (id: string) => void;
  onAnswer?: () => void;
}) {
  const { t } = useTranslation("chat");
  const text = textOf(question);
  if (editing !== null)
    return (
      <article className="chat-msg chat-question chat-editing">
        <label htmlFor={`edit-${question.id}`} className="sr-only">
          {t("page.editQuestion")}
        </label>
        <Input.TextArea
          id={`edit-${question.id}`}
          value={editing}
          onChange={(e) => onEdit(e.target.value)}
          autoSize={{ minRows: 2, maxRows: 12 }}
          maxLength={MAX_QUESTION}
          autoFocus
        />
        <div className="chat-edit-actions">
          <Button onClick={() => onEdit(null)}>{t("page.cancel")}</Button>
          <Button onClick={() => onSave(false)} disabled={!editing.trim()}>
            {t("page.save")}
          </Button>
          <Button type="primary" onClick={() => onSave(true)} disabled={!editing.trim() || busy}>
            {t("page.saveAndRerun")}
          </Button>
        </div>
      </article>
    );
  return (
    <article className="chat-msg chat-question">
      <QuestionImages urls={imagesOf(question).map((image) => image.url)} label={t("page.attached")} />
      <div className="chat-question-text">{text}</div>
      <footer className="chat-msg-foot">
        <SiblingNav siblings={siblings} current={question.id} disabled={busy} onPick={onPick} />
        <IconAction icon={<EditOutlined />} label={t("page.edit")} disabled={busy} onClick={() => onEdit(text)} />
        <CopyButton text={text} />
        {onAnswer && (
          <Button size="small" icon={<StepForwardOutlined />} onClick={onAnswer} disabled={busy}>
            {t("page.answer")}
          </Button>
        )}
      </footer>
    </article>
  );
}

function AnswerView({
  turn,
  live,
  siblings,
  busy,
  onPick,
  onRegenerate,
  onContinue,
}: {
  turn: Extract<Turn, { kind: "answer" }>;
  live: Live | null;
  siblings: ChatMessageView[];
  busy: boolean;
  onPick: (id: string) => void;
  onRegenerate?: () => void;
  onContinue?: () => void;
}) {
  const { t } = useTranslation("chat");
  const locale = usePageLocale();
  const revalidator = useRevalidator();
  const summary = answerSummary(turn.messages);
  const text = summary.text + (live?.text ?? "");
  const writing = live !== null || summary.status === "streaming";
  const model = turn.head.modelId;
  const segments = segmentsOf(turn.messages, live);
  return (
    <article className="chat-msg chat-answer" aria-busy={writing || undefined} data-status={summary.status}>
      {segments.map((segment, i) =>
        segment.kind === "text" ? (
          <Markdown key={i} text={segment.text} />
        ) : (
          <ToolCard
            key={segment.part.toolCallId}
            part={segment.part}
            messageId={writing ? undefined : segment.messageId}
            onSettled={() => revalidator.revalidate()}
          />
        ),
      )}
      {segments.length === 0 && writing && <Writing />}
      {!writing && summary.status === "failed" && (
        <Alert
          type="error"
          showIcon
          className="chat-alert"
          title={t(summary.errorCode === "interrupted" ? "page.interrupted" : "page.failed")}
        />
      )}
      {!writing && (
        <footer className="chat-msg-foot">
          <SiblingNav siblings={siblings} current={turn.head.id} disabled={busy} onPick={onPick} />
          {summary.status === "stopped" && <Tag>{t("page.stopped")}</Tag>}
          {summary.status === "out_of_credits" && <Tag color="warning">{t("page.outOfCreditsTag")}</Tag>}
          <span className="chat-cost" title={model ?? undefined}>
            {t("page.cost", { count: summary.credits, formatted: formatNumber(locale, summary.credits) })}
          </span>
          {text && <CopyButton text={text} />}
          {onRegenerate && <IconAction icon={<ReloadOutlined />} label={t("page.regenerate")} onClick={onRegenerate} />}
          {onContinue && summary.status === "stopped" && (
            <Button size="small" icon={<StepForwardOutlined />} onClick={onContinue}>
              {t("page.continue")}
            </Button>
          )}
        </footer>
      )}
    </article>
  );
}

/** The turn ended because the credits ran out: buy or redeem, then the answer goes on from where it stopped. */
function OutOfCredits({ redeemAnswer, onContinue }: { redeemAnswer?: RedeemResult; onContinue: () => void }) {
  const { t } = useTranslation("chat");
  const locale = usePageLocale();
  const { pathname } = useLocation();
  return (
    <div className="chat-topup" role="region" aria-label={t("page.outOfCreditsTitle")}>
      <h2>
        <WalletOutlined aria-hidden /> {t("page.outOfCreditsTitle")}
      </h2>
      <p>{t("page.outOfCreditsText")}</p>
      <div className="chat-topup-actions">
        <Link to={hrefIn(pathname, "/pricing")} className="ant-btn ant-btn-default">
          {t("page.buyCredits")}
        </Link>
        <Button type="primary" icon={<StepForwardOutlined />} onClick={onContinue}>
          {t("page.continue")}
        </Button>
      </div>
      <RedeemCard locale={locale} pageAnswer={redeemAnswer} onRedeemed={onContinue} className="chat-redeem" />
    </div>
  );
}
