import type { Route } from "./+types/studio";
import { VideoStudio, type VideoSettings } from "#app/components/studio/video-studio.tsx";
import { requireViewer } from "#app/lib/auth.server.ts";
import { inputOfUrl, modelsFor, ownGeneration, remixSource, studioPage, toolOf } from "#app/lib/studio.server.ts";
import { seoMeta } from "#app/seo.ts";
import { getGeneration } from "#server/modules/generation/get-generation.ts";
import { listGenerations } from "#server/modules/generation/list-generations.ts";
import type { MediaView } from "#server/modules/generation/get-generation.ts";
import { toolSpec } from "#common/tools.ts";

export const meta = ({ loaderData }: Route.MetaArgs) => seoMeta(loaderData?.seo);

const NO_HISTORY = { items: [], nextCursor: null };

/**
 * `/dashboard/video/create` (the text-to-video form and what was started there) and `/dashboard/video/{tool}` (a
 * video tool's form and every video).
 */
export async function loader({ context, request, params }: Route.LoaderArgs) {
  const url = new URL(request.url);
  const workspace = !url.pathname.endsWith("/create");
  const tool = workspace ? toolOf((params as { toolId?: string }).toolId, "video") : "text-to-video";
  const { viewer, runtime, db } = requireViewer(context, request);
  const env = runtime.env;
  const id = url.searchParams.get("id");
  const from = url.searchParams.get("from");
  const [current, history, source, given, remixed] = await Promise.all([
    !workspace && id ? ownGeneration({ db, env, id, viewerId: viewer.id, tool }).catch(() => null) : null,
    workspace
      ? listGenerations({ db, userId: viewer.id, query: { kind: "video", limit: "12" } }).catch(() => null)
      : NO_HISTORY,
    from ? getGeneration({ db, env, id: from, viewerId: viewer.id }).catch(() => null) : null,
    toolSpec(tool).image ? inputOfUrl({ db, url, viewerId: viewer.id }) : null,
    remixSource({ db, env, url, viewerId: viewer.id }),
  ]);
  const frame = (m: MediaView | null) =>
    m ? { assetId: m.id, preview: m.thumbUrl ?? m.url, label: source?.prompt ?? m.id } : null;
  const reused: VideoSettings | null =
    source?.mine && source.kind === "video"
      ? {
          model: source.model.id,
          prompt: source.prompt,
          style: source.params.style,
          duration: source.params.duration,
          aspectRatio: source.params.aspectRatio as VideoSettings["aspectRatio"],
          ...(source.params.resolution !== undefined ? { resolution: source.params.resolution } : {}),
          ...(source.params.audio !== undefined ? { audio: source.params.audio } : {}),
          ...(source.params.options ? { options: source.params.options } : {}),
          input: frame(source.input),
          end: frame(source.end),
        }
      : null;
  // A remix: the public result's model, prompt and settings; its frames only when they are the viewer's own.
  const remix: VideoSettings | null =
    remixed?.kind === "video"
      ? {
          model: remixed.model.id,
          prompt: remixed.prompt,
          style: remixed.params.style,
          duration: remixed.params.duration,
          aspectRatio: remixed.params.aspectRatio as VideoSettings["aspectRatio"],
          ...(remixed.params.resolution !== undefined ? { resolution: remixed.params.resolution } : {}),
          ...(remixed.params.audio !== undefined ? { audio: remixed.params.audio } : {}),
          ...(remixed.params.options ? { options: remixed.params.options } : {}),
          ...(remixed.mine ? { input: frame(remixed.input), end: frame(remixed.end) } : {}),
          remixOf: { id: remixed.id, prompt: remixed.prompt },
        }
      : null;
  const initial: VideoSettings = {
    ...(remix ?? reused ?? { prompt: url.searchParams.get("prompt")?.slice(0, 2000) }),
    ...(given ? { input: given } : {}),
  };
  return {
    ...studioPage(context, request, `tools.${tool}.title`),
    tool,
    workspace,
    formKey: `${from ?? ""}:${url.searchParams.get("remix") ?? ""}:${url.searchParams.get("prompt") ?? ""}:${url.searchParams.get("input") ?? ""}`,
    models: modelsFor(runtime, tool, viewer, request),
    initial,
    current,
    history: history ?? NO_HISTORY,
    listFailed: history === null,
    timeoutSeconds: env.VIDEO_POLL_TIMEOUT_SECONDS,
  };
}

export default function VideoStudioRoute({ loaderData }: Route.ComponentProps) {
  const d = loaderData;
  return (
    <VideoStudio
      key={`${d.tool}:${d.workspace}:${d.formKey}`}
      tool={d.tool}
      models={d.models}
      initial={d.initial}
      current={d.current}
      history={d.history}
      workspace={d.workspace}
      timeoutSeconds={d.timeoutSeconds}
      listFailed={d.listFailed}
    />
  );
}
