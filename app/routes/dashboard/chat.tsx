import { data } from "react-router";
import type { Route } from "./+types/chat";
import { ChatPage } from "#app/components/chat/chat-page.tsx";
import { requireViewer } from "#app/lib/auth.server.ts";
import { pageMeta } from "#app/lib/page.server.ts";
import { redeemIntent } from "#app/lib/redeem.server.ts";
import { formOf } from "#app/lib/request.server.ts";
import { seoMeta } from "#app/seo.ts";
import { AppError } from "#server/errors.ts";
import { getConversation, listConversations, listFolders } from "#server/modules/chat/conversations.ts";

export const meta = ({ loaderData }: Route.MetaArgs) => seoMeta(loaderData?.seo);

/**
 * `/dashboard/chat` (a new conversation) and `/dashboard/chat/:id` (one of the account's): the list of
 * conversations (searched with `?q=`), the folders, the models offered and the conversation's whole tree.
 */
export async function loader({ context, request, params }: Route.LoaderArgs) {
  const { viewer, runtime, db } = requireViewer(context, request);
  const q = new URL(request.url).searchParams.get("q")?.slice(0, 200) ?? "";
  const [opened, conversations, folders] = await Promise.all([
    params.id
      ? getConversation({ db, userId: viewer.id, conversationId: params.id }).catch((error: unknown) => {
          if (error instanceof AppError && error.code === "not_found") return null;
          throw error;
        })
      : null,
    listConversations({ db, userId: viewer.id, q }),
    listFolders({ db, userId: viewer.id }),
  ]);
  if (params.id && !opened) throw data(null, { status: 404 });
  const { i18n, seo } = pageMeta(context, request, ["chat", "billing", "studio"], (t) => ({
    title: opened?.conversation.title ?? t("chat:page.title"),
    noindex: true,
  }));
  return {
    seo,
    i18n,
    q,
    conversations,
    folders,
    opened,
    models: runtime.models.chat({ admin: viewer.role === "admin" }).map((m) => ({
      id: m.id,
      name: m.name,
      price: m.price,
      maxOutputTokens: m.maxOutputTokens,
      vision: m.vision ?? false,
      tools: m.tools,
      offline: m.offline ?? false,
    })),
  };
}

/** The "out of credits" card's redemption code. */
export async function action({ context, request }: Route.ActionArgs) {
  const { viewer, db } = requireViewer(context, request);
  return redeemIntent(db, viewer.id, await formOf(request));
}

export default function ChatRoute({ loaderData, actionData }: Route.ComponentProps) {
  return <ChatPage {...loaderData} redeemAnswer={actionData} />;
}
