import { useEffect, useRef, useState } from "react";
import { Button, Dropdown, Input, Modal } from "antd";
import {
  DeleteOutlined,
  EditOutlined,
  FolderAddOutlined,
  FolderOutlined,
  MoreOutlined,
  PlusOutlined,
  PushpinOutlined,
  SearchOutlined,
} from "#app/components/antd-icons.ts";
import { useTranslation } from "react-i18next";
import { Form, Link, useLocation, useNavigate, useRevalidator } from "react-router";
import { useToast } from "#app/components/feedback.ts";
import { useHydrated } from "#app/components/relative-time.tsx";
import { api } from "#app/lib/api.ts";
import { describeFailure } from "#app/lib/generations.ts";
import { dateGroupOf, type DateGroup } from "#app/lib/chat-tree.ts";
import { hrefIn } from "#common/locales.ts";

export interface ConversationItem {
  id: string;
  title: string | null;
  modelId: string;
  pinned: boolean;
  folderId: string | null;
  updatedAt: string | Date;
}

export interface FolderItem {
  id: string;
  name: string;
}

const DATE_GROUPS: DateGroup[] = ["today", "yesterday", "week", "month", "older"];

type Dialog =
  | { kind: "rename"; conversation: ConversationItem }
  | { kind: "delete"; conversation: ConversationItem }
  | { kind: "folder"; conversation: ConversationItem };

/**
 * The account's conversations: a new one, search over titles and messages (a GET form, so it works before the
 * page's scripts run; then it searches as one types), pinned ones first, then each folder, then the rest by date.
 * Each one can be renamed, pinned, filed in a folder or deleted.
 */
export function ConversationList({
  conversations,
  folders,
  q,
  currentId,
  onNavigate,
}: {
  conversations: ConversationItem[];
  folders: FolderItem[];
  q: string;
  currentId: string | null;
  onNavigate?: () => void;
}) {
  const { t } = useTranslation("chat");
  const { pathname } = useLocation();
  const navigate = useNavigate();
  const revalidator = useRevalidator();
  const toast = useToast();
  const hydrated = useHydrated();
  const [dialog, setDialog] = useState<Dialog | null>(null);
  const [folderDialog, setFolderDialog] = useState<{ kind: "rename" | "delete"; folder: FolderItem } | null>(null);
  const [name, setName] = useState("");
  const [search, setSearch] = useState(q);
  const searchTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(searchTimer.current), []);

  const chatPath = (id?: string) => hrefIn(pathname, id ? `/dashboard/chat/${id}` : "/dashboard/chat");
  const withQuery = (path: string) => (q ? `${path}?q=${encodeURIComponent(q)}` : path);

  const change = async (id: string, body: object) => {
    try {
      await api(`/chat/conversations/${id}`, { method: "PATCH", body });
      await revalidator.revalidate();
      return true;
    } catch (error) {
      toast.error(describeFailure(error).message ?? t("common:msg.unknownError"));
      return false;
    }
  };
  const remove = async (conversation: ConversationItem) => {
    try {
      await api(`/chat/conversations/${conversation.id}`, { method: "DELETE" });
      toast.success(t("page.deleted"));
      if (conversation.id === currentId) await navigate(withQuery(chatPath()), { replace: true });
      else await revalidator.revalidate();
    } catch (error) {
      toast.error(describeFailure(error).message ?? t("common:msg.unknownError"));
    }
  };
  const newFolder = async (conversation: ConversationItem, folderName: string) => {
    try {
      const { folder } = await api<{ folder: FolderItem }>("/chat/folders", {
        method: "POST",
        body: { name: folderName },
      });
      return change(conversation.id, { folderId: folder.id });
    } catch (error) {
      toast.error(describeFailure(error).message ?? t("common:msg.unknownError"));
      return false;
    }
  };

  const now = new Date();
  const timeZone = hydrated ? undefined : "UTC";
  const pinned = conversations.filter((c) => c.pinned);
  const filed = (folderId: string) => conversations.filter((c) => !c.pinned && c.folderId === folderId);
  const loose = conversations.filter((c) => !c.pinned && (!c.folderId || !folders.some((f) => f.id === c.folderId)));
  const byDate = DATE_GROUPS.map((group) => ({
    group,
    items: loose.filter((c) => dateGroupOf(new Date(c.updatedAt), now, timeZone) === group),
  })).filter((g) => g.items.length > 0);

  const item = (c: ConversationItem) => (
    <li key={c.id} className={c.id === currentId ? "chat-list-item chat-list-current" : "chat-list-item"}>
      <Link
        to={withQuery(chatPath(c.id))}
        className="chat-list-link"
        aria-current={c.id === currentId ? "page" : undefined}
        onClick={onNavigate}
      >
        {c.pinned && <PushpinOutlined aria-hidden className="chat-list-pin" />}
        <span className="chat-list-title">{c.title ?? t("page.untitled")}</span>
      </Link>
      <Dropdown
        trigger={["click"]}
        menu={{
          items: [
            { key: "rename", icon: <EditOutlined />, label: t("page.rename") },
            { key: "pin", icon: <PushpinOutlined />, label: t(c.pinned ? "page.unpin" : "page.pin") },
            { key: "folder", icon: <FolderOutlined />, label: t("page.moveToFolder") },
            { type: "divider" },
            { key: "delete", icon: <DeleteOutlined />, label: t("page.delete"), danger: true },
          ],
          onClick: ({ key }) => {
            if (key === "pin") void change(c.id, { pinned: !c.pinned });
            else if (key === "rename" || key === "delete" || key === "folder") {
              setName(key === "rename" ? (c.title ?? "") : "");
              setDialog({ kind: key, conversation: c });
            }
          },
        }}
      >
        <Button
          type="text"
          size="small"
          className="chat-list-more"
          icon={<MoreOutlined />}
          aria-label={t("page.actionsFor", { title: c.title ?? t("page.untitled") })}
        />
      </Dropdown>
    </li>
  );
  const section = (
    key: string,
    heading: string,
    items: ConversationItem[],
    icon?: React.ReactNode,
    folder?: FolderItem,
  ) => (
    <section key={key} className="chat-list-group" aria-label={heading}>
      <h3 className="chat-list-heading">
        {icon}
        <span className="chat-list-heading-text">{heading}</span>
        {folder && (
          <Dropdown
            trigger={["click"]}
            menu={{
              items: [
                { key: "rename", icon: <EditOutlined />, label: t("page.renameFolder") },
                { key: "delete", icon: <DeleteOutlined />, label: t("page.deleteFolder"), danger: true },
              ],
              onClick: ({ key }) => {
                setName(folder.name);
                setFolderDialog({ kind: key as "rename" | "delete", folder });
              },
            }}
          >
            <Button
              type="text"
              size="small"
              className="chat-list-more"
              icon={<MoreOutlined />}
              aria-label={t("page.actionsFor", { title: folder.name })}
            />
          </Dropdown>
        )}
      </h3>
      <ul>{items.map(item)}</ul>
    </section>
  );
  const changeFolder = async (kind: "rename" | "delete", folder: FolderItem) => {
    try {
      if (kind === "rename") await api(`/chat/folders/${folder.id}`, { method: "PATCH", body: { name: name.trim() } });
      else await api(`/chat/folders/${folder.id}`, { method: "DELETE" });
      await revalidator.revalidate();
      setFolderDialog(null);
    } catch (error) {
      toast.error(describeFailure(error).message ?? t("common:msg.unknownError"));
    }
  };

  return (
    <nav className="chat-list" aria-label={t("page.conversations")}>
      <Link to={chatPath()} className="chat-new" onClick={onNavigate}>
        <PlusOutlined aria-hidden /> {t("page.newChat")}
      </Link>
      <Form method="get" role="search" className="chat-search" action={chatPath(currentId ?? undefined)}>
        <label htmlFor="chat-search" className="sr-only">
          {t("page.search")}
        </label>
        <Input
          id="chat-search"
          name="q"
          type="search"
          value={search}
          allowClear
          maxLength={200}
          prefix={<SearchOutlined aria-hidden />}
          placeholder={t("page.search")}
          onChange={(e) => {
            const value = e.target.value;
            setSearch(value);
            clearTimeout(searchTimer.current);
            const path = chatPath(currentId ?? undefined);
            searchTimer.current = setTimeout(() => {
              const query = value.trim() ? `?q=${encodeURIComponent(value.trim())}` : "";
              void navigate(`${path}${query}`, { replace: true, preventScrollReset: true });
            }, 250);
          }}
        />
      </Form>
      {conversations.length === 0 ? (
        <p className="chat-list-empty">{q ? t("page.noMatch") : t("page.noConversations")}</p>
      ) : q ? (
        section("results", t("page.results", { count: conversations.length }), conversations)
      ) : (
        <>
          {pinned.length > 0 && section("pinned", t("page.pinned"), pinned)}
          {folders.map((f) => {
            const items = filed(f.id);
            return items.length > 0 ? section(f.id, f.name, items, <FolderOutlined aria-hidden />, f) : null;
          })}
          {byDate.map((g) => section(g.group, t(`page.groups.${g.group}`), g.items))}
        </>
      )}

      <Modal
        open={folderDialog?.kind === "rename"}
        title={t("page.renameFolder")}
        okText={t("page.save")}
        cancelText={t("page.cancel")}
        onCancel={() => setFolderDialog(null)}
        okButtonProps={{ disabled: name.trim() === "" }}
        onOk={() => folderDialog && changeFolder("rename", folderDialog.folder)}
        destroyOnHidden
      >
        <label htmlFor="chat-folder-rename" className="sr-only">
          {t("page.folderName")}
        </label>
        <Input
          id="chat-folder-rename"
          value={name}
          maxLength={100}
          onChange={(e) => setName(e.target.value)}
          autoFocus
        />
      </Modal>
      <Modal
        open={folderDialog?.kind === "delete"}
        title={t("page.deleteFolderTitle")}
        okText={t("page.delete")}
        okButtonProps={{ danger: true }}
        cancelText={t("page.cancel")}
        onCancel={() => setFolderDialog(null)}
        onOk={() => folderDialog && changeFolder("delete", folderDialog.folder)}
      >
        <p>{t("page.deleteFolderText", { name: folderDialog?.folder.name ?? "" })}</p>
      </Modal>
      <Modal
        open={dialog?.kind === "rename"}
        title={t("page.renameTitle")}
        okText={t("page.save")}
        cancelText={t("page.cancel")}
        onCancel={() => setDialog(null)}
        okButtonProps={{ disabled: name.trim() === "" }}
        onOk={async () => {
          if (dialog && (await change(dialog.conversation.id, { title: name.trim() }))) setDialog(null);
        }}
        destroyOnHidden
      >
        <label htmlFor="chat-rename" className="sr-only">
          {t("page.titleLabel")}
        </label>
        <Input id="chat-rename" value={name} maxLength={200} onChange={(e) => setName(e.target.value)} autoFocus />
      </Modal>
      <Modal
        open={dialog?.kind === "delete"}
        title={t("page.deleteTitle")}
        okText={t("page.delete")}
        okButtonProps={{ danger: true }}
        cancelText={t("page.cancel")}
        onCancel={() => setDialog(null)}
        onOk={async () => {
          if (dialog) await remove(dialog.conversation);
          setDialog(null);
        }}
      >
        <p>{t("page.deleteText", { title: dialog?.conversation.title ?? t("page.untitled") })}</p>
      </Modal>
      <Modal
        open={dialog?.kind === "folder"}
        title={t("page.moveToFolder")}
        footer={null}
        onCancel={() => setDialog(null)}
        destroyOnHidden
      >
        <ul className="chat-folder-choices">
          {folders.map((f) => (
            <li key={f.id}>
              <Button
                block
                icon={<FolderOutlined />}
                type={dialog?.conversation.folderId === f.id ? "primary" : "default"}
                onClick={async () => {
                  if (dialog && (await change(dialog.conversation.id, { folderId: f.id }))) setDialog(null);
                }}
              >
                {f.name}
              </Button>
            </li>
          ))}
          {dialog?.conversation.folderId && (
            <li>
              <Button
                block
                onClick={async () => {
                  if (dialog && (await change(dialog.conversation.id, { folderId: null }))) setDialog(null);
                }}
              >
                {t("page.noFolder")}
              </Button>
            </li>
          )}
        </ul>
        <form
          className="chat-folder-new"
          onSubmit={async (e) => {
            e.preventDefault();
            if (dialog && name.trim() && (await newFolder(dialog.conversation, name.trim()))) setDialog(null);
          }}
        >
          <label htmlFor="chat-folder-name" className="sr-only">
            {t("page.folderName")}
          </label>
          <Input
            id="chat-folder-name"
            value={name}
            maxLength={100}
            placeholder={t("page.folderName")}
            onChange={(e) => setName(e.target.value)}
          />
          <Button htmlType="submit" icon={<FolderAddOutlined />} disabled={name.trim() === ""}>
            {t("page.newFolder")}
          </Button>
        </form>
      </Modal>
    </nav>
  );
}
