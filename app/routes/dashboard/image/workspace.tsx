import type { Route } from "./+types/workspace";
import { ImageToolPage } from "#app/components/studio/image-tool-page.tsx";
import { requireViewer } from "#app/lib/auth.server.ts";
import { initialSettings, modelsFor, toolOf, toolsServed, studioPage } from "#app/lib/studio.server.ts";
import { seoMeta } from "#app/seo.ts";
import { listGenerations } from "#server/modules/generation/list-generations.ts";

export const meta = ({ loaderData }: Route.MetaArgs) => seoMeta(loaderData?.seo);

export async function loader({ context, request, params }: Route.LoaderArgs) {
  const tool = toolOf(params.toolId, "image");
  const { viewer, runtime, db } = requireViewer(context, request);
  const env = runtime.env;
  const url = new URL(request.url);
  const [history, initial] = await Promise.all([
    listGenerations({ db, userId: viewer.id, query: { tool, limit: "12" } }),
    initialSettings({ db, env, url, viewerId: viewer.id }),
  ]);
  return {
    ...studioPage(context, request, `tools.${tool}.title`),
    tool,
    // A new "reuse settings" or handed-over prompt starts a fresh form.
    formKey: `${tool}:${url.searchParams.get("from") ?? ""}:${url.searchParams.get("remix") ?? ""}:${url.searchParams.get("prompt") ?? ""}:${url.searchParams.get("input") ?? ""}`,
    models: modelsFor(runtime, tool, viewer, request),
    served: toolsServed(runtime, "image", viewer),
    initial,
    history,
  };
}

export default function ImageWorkspace({ loaderData }: Route.ComponentProps) {
  const { tool, formKey, models, served, initial, history } = loaderData;
  return (
    <ImageToolPage
      key={formKey}
      tool={tool}
      models={models}
      served={served}
      initial={initial}
      current={null}
      history={history}
      workspace
    />
  );
}
