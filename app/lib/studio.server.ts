import { data } from "react-router";
import { pathLocale, type Ctx } from "#app/lib/request.server.ts";
import { pageMeta } from "#app/lib/page.server.ts";
import type { Env } from "#server/env.ts";
import type { Runtime } from "#server/runtime.ts";
import type { Db } from "#server/db/client.ts";
import { AppError } from "#server/errors.ts";
import { getGeneration } from "#server/modules/generation/get-generation.ts";
import { listModels } from "#server/modules/generation/list-models.ts";
import { toolOfHash, toolsOfKind, type GenerationTool, type ToolKind } from "#common/tools.ts";
import type { ImageSettings } from "#app/components/studio/image-studio.tsx";

/** The tool a dashboard URL's tool id names, or a 404 for anything else. */
export function toolOf(toolId: string | undefined, kind: "image" | "video"): GenerationTool {
  const tool = toolOfHash(toolId, kind);
  if (!tool) throw data(null, { status: 404 });
  return tool;
}

/** The offered models that can do a tool (administrators also see those offered to them only). */
export function modelsFor(
  runtime: Pick<Runtime, "models">,
  tool: GenerationTool,
  viewer: { role: string },
  request: Request,
) {
  return listModels(runtime.models, { admin: viewer.role === "admin" }, pathLocale(request)).filter((m) =>
    m.tools.includes(tool),
  );
}

/** The tools of a kind that at least one offered model serves, in the table's order: what a studio offers. */
export function toolsServed(runtime: Pick<Runtime, "models">, kind: ToolKind, viewer: { role: string }) {
  const models = listModels(runtime.models, { admin: viewer.role === "admin" });
  return toolsOfKind(kind).filter((tool) => models.some((m) => m.tools.includes(tool)));
}

/** One of the viewer's generations, or a 404 (unknown, someone else's, or not of this tool). */
export async function ownGeneration(options: {
  db: Db;
  env: Env;
  id: string;
  viewerId: string;
  tool?: GenerationTool;
}) {
  try {
    const g = await getGeneration({ db: options.db, env: options.env, id: options.id, viewerId: options.viewerId });
    if (options.tool && g.tool !== options.tool) throw data(null, { status: 404 });
    return g;
  } catch (error) {
    if (error instanceof AppError && error.code === "not_found") throw data(null, { status: 404 });
    throw error;
  }
}

/**
 * What a tool's form starts with: the settings of one of the viewer's generations (`?from=`, "reuse settings"),
 * or a prompt handed over by another page (`?prompt=`).
 */
export async function initialSettings(options: {
  db: Db;
  env: Env;
  url: URL;
  viewerId: string;
}): Promise<ImageSettings> {
  const from = options.url.searchParams.get("from");
  const prompt = options.url.searchParams.get("prompt")?.slice(0, 2000);
  if (from) {
    const g = await getGeneration({ db: options.db, env: options.env, id: from, viewerId: options.viewerId }).catch(
      () => null,
    );
    if (g?.mine) {
      return {
        model: g.model.id,
        prompt: g.prompt,
        negativePrompt: g.negativePrompt,
        aspectRatio: g.params.aspectRatio,
        count: g.params.count,
        seed: g.params.seed,
        strength: g.params.strength,
        ...(g.params.resolution !== undefined ? { resolution: g.params.resolution } : {}),
        ...(g.params.options ? { options: g.params.options } : {}),
        input: g.input
          ? {
              assetId: g.input.id,
              preview: g.input.thumbUrl ?? g.input.url,
              label: g.prompt,
              full: g.input.url,
              width: g.input.width ?? undefined,
              height: g.input.height ?? undefined,
            }
          : null,
      };
    }
  }
  return prompt ? { prompt } : {};
}

/** The head and translations of a studio page: its title from the studio namespace, never indexed. */
export function studioPage(context: Ctx, request: Request, titleKey: string) {
  const { seo, i18n } = pageMeta(context, request, ["studio"], (t) => ({
    title: t(`studio:${titleKey}`),
    noindex: true,
  }));
  return { seo, i18n };
}
