import { data } from "react-router";
import type { Route } from "./+types/create";
import { ImageToolPage } from "#app/components/studio/image-tool-page.tsx";
import { requireViewer } from "#app/lib/auth.server.ts";
import { initialSettings, modelsFor, ownGeneration, studioPage } from "#app/lib/studio.server.ts";
import { seoMeta } from "#app/seo.ts";

export const meta = ({ loaderData }: Route.MetaArgs) => seoMeta(loaderData?.seo);

export async function loader({ context, request, params }: Route.LoaderArgs) {
  const tool: "text-to-image" | "image-to-image" | undefined =
    params.tool === "text-to-image" || params.tool === "image-to-image" ? params.tool : undefined;
  if (!tool) throw data(null, { status: 404 });
  const { viewer, runtime, db } = requireViewer(context, request);
  const env = runtime.env;
  const url = new URL(request.url);
  const id = url.searchParams.get("id");
  const current = id ? await ownGeneration({ db, env, id, viewerId: viewer.id, tool }).catch(() => null) : null;
  return {
    ...studioPage(context, request, `tools.${tool}.title`),
    tool,
    // A new "reuse settings" or handed-over prompt starts a fresh form.
    formKey: `${tool}:${url.searchParams.get("from") ?? ""}:${url.searchParams.get("prompt") ?? ""}`,
    models: modelsFor(runtime, tool, viewer, request),
    initial: await initialSettings({ db, env, url, viewerId: viewer.id }),
    current,
  };
}

const NO_HISTORY = { items: [], nextCursor: null };

export default function CreateImage({ loaderData }: Route.ComponentProps) {
  const { tool, formKey, models, initial, current } = loaderData;
  return (
    <ImageToolPage
      key={formKey}
      tool={tool}
      models={models}
      initial={initial}
      current={current}
      history={NO_HISTORY}
      workspace={false}
    />
  );
}
