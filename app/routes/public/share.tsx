import { useTranslation } from "react-i18next";
import { Link, data, useLocation } from "react-router";
import type { Route } from "./+types/share";
import { AntdProvider } from "#app/components/antd-provider.tsx";
import { Button } from "#app/components/ui/button.tsx";
import { Paragraph, Title } from "#app/components/ui/typography.tsx";
import { OfflineTag } from "#app/components/studio/parts.tsx";
import { OutputMedia } from "#app/components/studio/result-view.tsx";
import { serverContextOf } from "#app/lib/request.server.ts";
import { seoMeta } from "#app/seo.ts";
import { pageMeta } from "#app/lib/page.server.ts";
import { AppError } from "#server/errors.ts";
import { getGeneration } from "#server/modules/generation/get-generation.ts";
import { hrefIn } from "#common/locales.ts";
import { resultPath } from "#app/lib/generations.ts";

export const meta = ({ loaderData }: Route.MetaArgs) => seoMeta(loaderData?.seo);

// Its owner may make it private or delete it at any moment: never kept by the page cache or a shared cache.
export const headers: Route.HeadersFunction = ({ parentHeaders }) => {
  const headers = new Headers(parentHeaders);
  headers.set("Cache-Control", "private, no-cache");
  return headers;
};

/** A generation its owner made public: anyone can look at it; a private or unknown one does not exist (404). */
export async function loader({ context, request, params }: Route.LoaderArgs) {
  const { runtime, session } = serverContextOf(context);
  let generation;
  try {
    generation = await getGeneration({
      db: runtime.database.db,
      env: runtime.env,
      id: params.id,
      viewerId: session.viewer?.id ?? null,
      allowPublic: true,
      chain: true,
    });
  } catch (error) {
    if (error instanceof AppError && error.code === "not_found") throw data(null, { status: 404 });
    throw error;
  }
  if (generation.visibility !== "public" || generation.status !== "succeeded") throw data(null, { status: 404 });
  const image = generation.outputs[0];
  const { i18n, seo } = pageMeta(context, request, ["studio", "messages"], (t) => ({
    title: t("studio:share.pageTitle"),
    description: generation.prompt.slice(0, 160),
    // Shared by a user, not written by the site: kept out of search results.
    noindex: true,
    image: image?.thumbUrl || undefined,
  }));
  return {
    seo,
    i18n,
    generation: {
      id: generation.id,
      kind: generation.kind,
      tool: generation.tool,
      parent: generation.parent ?? null,
      prompt: generation.prompt,
      model: generation.model,
      params: { aspectRatio: generation.params.aspectRatio },
      outputs: generation.outputs,
      mine: generation.mine,
    },
  };
}

export default function SharedGeneration({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("studio");
  const { pathname } = useLocation();
  const g = loaderData.generation;
  // The picture viewer comes from the studio, built with Ant Design.
  return (
    <AntdProvider>
      <div className="page share">
        <div className="share-media">
          <OutputMedia generation={g} />
        </div>
        <div className="share-info">
          <Title level={1} className="share-title">
            {t("share.pageTitle")}
          </Title>
          <p className="share-tool">{t(`tools.${g.tool}.title`)}</p>
          <Paragraph className="share-prompt">{g.prompt}</Paragraph>
          {g.parent && (
            <p className="share-parent" data-testid="made-from">
              <span>{t("chain.madeFrom")}</span>{" "}
              <Link to={hrefIn(pathname, g.mine ? resultPath(g.parent) : `/share/${g.parent.id}`)}>
                {g.parent.thumbUrl && <img src={g.parent.thumbUrl} alt="" className="share-parent-thumb" />}
                {t(`tools.${g.parent.tool}.title`)}
              </Link>
            </p>
          )}
          <p className="share-model">
            {g.model.name}
            {g.model.offline && <OfflineTag />}
          </p>
          <Link to={hrefIn(pathname, "/dashboard/image/create/text-to-image")}>
            <Button type="primary">{t("share.cta")}</Button>
          </Link>
          <p className="share-verify">
            <Link to={hrefIn(pathname, "/verify")}>{t("common:verifyLink")}</Link>
          </p>
        </div>
      </div>
    </AntdProvider>
  );
}
