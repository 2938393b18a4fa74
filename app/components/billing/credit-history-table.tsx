import type { TableColumnsType } from "antd";
import { useTranslation } from "react-i18next";
import { Link, useLocation } from "react-router";
import type { EntryView } from "#server/modules/credits/list-entries.ts";
import { formatDate, formatNumber } from "#common/format.ts";
import { hrefIn, type Locale } from "#common/locales.ts";
import { resultPath } from "#app/lib/generations.ts";
import { PagedTable, type Paged } from "./paged-table.tsx";

/**
 * Every change of the balance, newest first, a page at a time (`?history=`). `linked`: its orders and jobs link to
 * their pages (the owner's view; an administrator reads someone else's).
 */
export function CreditHistoryTable({
  history,
  locale,
  linked = true,
}: {
  history: Paged<EntryView>;
  locale: Locale;
  linked?: boolean;
}) {
  const { t } = useTranslation("billing");
  const { pathname } = useLocation();
  /** What the movement was for, in words: the API key that asked, the conversation, the job, the order. */
  const referenceLabel = (ref: NonNullable<EntryView["reference"]>) => {
    const id = ref.id.slice(0, 8);
    if (ref.api) {
      const what = ref.type === "chat" ? "apiChat" : "apiJob";
      return ref.api.keyName
        ? t(`orders.reference.${what}`, { id, key: ref.api.keyName })
        : t(`orders.reference.${what}DeletedKey`, { id });
    }
    if (ref.type === "chat")
      return ref.label ? t("orders.reference.chat", { title: ref.label }) : t("orders.reference.chatUntitled");
    return t(`orders.reference.${ref.type}`, { id: ref.label ?? id });
  };
  /** Where the movement's cause is shown, while it exists. */
  const referencePath = (ref: NonNullable<EntryView["reference"]>) => {
    if (ref.type === "order") return `/user/orders/${ref.id}`;
    // A generation that still exists opens on its result page.
    if (ref.type === "job" && ref.tool) return resultPath({ id: ref.id, tool: ref.tool });
    if (ref.type === "chat" && ref.api) return "/dashboard/api";
    if (ref.type === "chat" && ref.conversationId) return `/dashboard/chat/${ref.conversationId}`;
    return null;
  };
  const signed = (n: number) => (n > 0 ? `+${formatNumber(locale, n)}` : n < 0 ? `−${formatNumber(locale, -n)}` : "0");
  const columns: TableColumnsType<EntryView> = [
    {
      title: t("orders.columns.date"),
      dataIndex: "createdAt",
      render: (value: string) => formatDate(locale, value),
    },
    {
      title: t("orders.columns.kind"),
      dataIndex: "kind",
      render: (value: string) => t(`orders.kinds.${value}`),
    },
    {
      // What the balance moved by, and apart from it what was reserved (+) or let go (−) for a running job: a
      // reservation changes what is available, not the balance.
      title: t("orders.columns.change"),
      dataIndex: "amount",
      align: "right",
      render: (value: number) =>
        value === 0 ? "—" : <span className={value > 0 ? "credit-plus" : "credit-minus"}>{signed(value)}</span>,
    },
    {
      title: t("orders.columns.heldChange"),
      dataIndex: "heldChange",
      align: "right",
      render: (value: number) => (value === 0 ? "—" : <span className="credit-held">{signed(value)}</span>),
    },
    {
      title: t("orders.columns.balanceAfter"),
      dataIndex: "balanceAfter",
      align: "right",
      render: (value: number) => formatNumber(locale, value),
    },
    {
      title: t("orders.columns.reference"),
      dataIndex: "reference",
      render: (ref: EntryView["reference"]) => {
        if (!ref) return null;
        const label = referenceLabel(ref);
        if (!linked) return label;
        const to = referencePath(ref);
        return to ? <Link to={hrefIn(pathname, to)}>{label}</Link> : label;
      },
    },
  ];
  return <PagedTable paged={history} param="history" columns={columns} empty={t("orders.historyEmpty")} />;
}
