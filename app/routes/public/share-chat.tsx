import { useTranslation } from "react-i18next";
import { data, useLocation } from "react-router";
import type { Route } from "./+types/share-chat";
import { Markdown } from "#app/components/chat/markdown.tsx";
import { Button } from "#app/components/ui/button.tsx";
import { serverContextOf } from "#app/lib/request.server.ts";
import { seoMeta } from "#app/seo.ts";
import { pageMeta } from "#app/lib/page.server.ts";
import { getSharedConversation } from "#server/modules/chat/share.ts";
import { formatDate } from "#common/format.ts";
import { hrefIn } from "#common/locales.ts";
import { isTool, kindOfTool } from "#common/tools.ts";

export const meta = ({ loaderData }: Route.MetaArgs) => seoMeta(loaderData?.seo);

// Its owner may stop sharing it at any moment: never kept by a cache, never indexed.
export const headers: Route.HeadersFunction = ({ parentHeaders }) => {
  const headers = new Headers(parentHeaders);
  headers.set("Cache-Control", "private, no-cache");
  headers.set("X-Robots-Tag", "noindex, nofollow");
  // The link's secret is in the address: it is not handed to the sites the conversation links to.
  headers.set("Referrer-Policy", "no-referrer");
  return headers;
};

/** A conversation its owner shared as a read-only link: anyone with the link reads it; otherwise it does not exist. */
export async function loader({ context, request, params }: Route.LoaderArgs) {
  const { runtime } = serverContextOf(context);
  const shared = await getSharedConversation({ db: runtime.database.db, models: runtime.models, token: params.token });
  if (!shared) throw data(null, { status: 404 });
  const { i18n, seo, locale } = pageMeta(context, request, ["chat"], (t) => ({
    title: shared.title ?? t("chat:page.untitled"),
    description: t("chat:shared.description"),
    noindex: true,
  }));
  return { seo, i18n, locale, shared };
}

export default function SharedConversation({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("chat");
  const { pathname } = useLocation();
  const { shared, locale } = loaderData;
  return (
    <div className="page chat-shared">
      <header className="chat-shared-head">
        <p className="chat-shared-kicker">{t("shared.kicker")}</p>
        <h1>{shared.title ?? t("page.untitled")}</h1>
        <p className="chat-shared-meta">
          {t("shared.meta", { model: shared.model, date: formatDate(locale, shared.sharedAt, { dateOnly: true }) })}
        </p>
      </header>
      <div className="chat-shared-thread">
        {shared.turns.map((turn, i) =>
          turn.role === "user" ? (
            <article key={i} className="chat-msg chat-question" aria-label={t("export.you")}>
              <div className="chat-question-text">
                {turn.segments.map((s) => (s.type === "text" ? s.text : "")).join("")}
              </div>
            </article>
          ) : (
            <article key={i} className="chat-msg chat-answer" aria-label={t("export.assistant")}>
              {turn.segments.map((segment, j) =>
                segment.type === "text" ? (
                  <Markdown key={j} text={segment.text} />
                ) : (
                  <section key={j} className="chat-tool">
                    <header className="chat-tool-head">
                      <strong>
                        {t(
                          isTool(segment.tool) && kindOfTool(segment.tool) === "video" ? "tools.video" : "tools.image",
                        )}
                      </strong>
                      <span className="chat-tool-model">{segment.model}</span>
                    </header>
                    <p className="chat-tool-prompt">{segment.prompt}</p>
                  </section>
                ),
              )}
            </article>
          ),
        )}
      </div>
      <footer className="chat-shared-foot">
        <p>{t("shared.readOnly")}</p>
        <Button type="primary" href={hrefIn(pathname, "/dashboard/chat")}>
          {t("shared.cta")}
        </Button>
      </footer>
    </div>
  );
}
