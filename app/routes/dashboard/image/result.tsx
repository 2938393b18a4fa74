import type { Route } from "./+types/result";
import { ResultView } from "#app/components/studio/result-view.tsx";
import { requireViewer } from "#app/lib/auth.server.ts";
import { ownGeneration, toolOf, studioPage } from "#app/lib/studio.server.ts";
import { seoMeta } from "#app/seo.ts";
import { pathLocale } from "#app/lib/request.server.ts";
import { publicByPlan } from "#server/modules/billing/entitlements.ts";

export const meta = ({ loaderData }: Route.MetaArgs) => seoMeta(loaderData?.seo);

export async function loader({ context, request, params }: Route.LoaderArgs) {
  const tool = toolOf(params.toolId, "image");
  const { viewer, runtime, db } = requireViewer(context, request);
  const generation = await ownGeneration({
    db,
    env: runtime.env,
    id: params.id,
    viewerId: viewer.id,
    tool,
  });
  return {
    ...studioPage(context, request, `tools.${tool}.title`),
    generation,
    publicByPlan: await publicByPlan(db, viewer, runtime.settings.current(), pathLocale(request)),
  };
}

export default function ImageResult({ loaderData }: Route.ComponentProps) {
  return (
    <ResultView key={loaderData.generation.id} initial={loaderData.generation} publicByPlan={loaderData.publicByPlan} />
  );
}
