import { data } from "react-router";
import type { Route } from "./+types/create";
import { ImageToolPage } from "#app/components/studio/image-tool-page.tsx";
import { requireViewer } from "#app/lib/auth.server.ts";
import { initialSettings, modelsFor, ownGeneration, toolsServed, studioPage } from "#app/lib/studio.server.ts";
import { seoMeta } from "#app/seo.ts";
import { isTool, kindOfTool } from "#common/tools.ts";

export const meta = ({ loaderData }: Route.MetaArgs) => seoMeta(loaderData?.seo);

export async function loader({ context, request, params }: Route.LoaderArgs) {
  const tool = params.tool;
  if (!isTool(tool) || kindOfTool(tool) !== "image") throw data(null, { status: 404 });
  const { viewer, runtime, db } = requireViewer(context, request);
  const env = runtime.env;
  const url = new URL(request.url);
  const id = url.searchParams.get("id");
  const current = id ? await ownGeneration({ db, env, id, viewerId: viewer.id, tool }).catch(() => null) : null;
  return {
    ...studioPage(context, request, `tools.${tool}.title`),
    tool,
    // A new "reuse settings" or handed-over prompt starts a fresh form.
    formKey: `${tool}:${url.searchParams.get("from") ?? ""}:${url.searchParams.get("remix") ?? ""}:${url.searchParams.get("prompt") ?? ""}:${url.searchParams.get("input") ?? ""}`,
    models: modelsFor(runtime, tool, viewer, request),
    served: toolsServed(runtime, "image", viewer),
    initial: await initialSettings({ db, env, url, viewerId: viewer.id }),
    current,
  };
}

const NO_HISTORY = { items: [], nextCursor: null };

export default function CreateImage({ loaderData }: Route.ComponentProps) {
  const { tool, formKey, models, served, initial, current } = loaderData;
  return (
    <ImageToolPage
      key={formKey}
      tool={tool}
      models={models}
      served={served}
      initial={initial}
      current={current}
      history={NO_HISTORY}
      workspace={false}
    />
  );
}
