import { data } from "react-router";
import { pathLocale, type Ctx } from "#app/lib/request.server.ts";
import { pageMeta } from "#app/lib/page.server.ts";
import type { Env } from "#server/env.ts";
import type { Runtime } from "#server/runtime.ts";
import type { Db } from "#server/db/client.ts";
import { AppError } from "#server/errors.ts";
import { getGeneration } from "#server/modules/generation/get-generation.ts";
import { getOwnImage } from "#server/modules/generation/get-own-image.ts";
import { getPublicResult } from "#server/modules/explore/get-public-result.ts";
import { isUuid } from "#common/ids.ts";
import { listModels } from "#server/modules/generation/list-models.ts";
import { GENERATION_TOOLS, kindOfTool, toolOfHash, type GenerationTool, type ToolKind } from "#common/tools.ts";
import type { ImageSettings } from "#app/components/studio/image-studio.tsx";
import type { InputImage } from "#app/components/studio/input-image.tsx";

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
  return studioOffer(runtime, viewer).tools.filter((tool) => kindOfTool(tool) === kind);
}

/**
 * What the dashboard offers the viewer: the tools some offered model serves (in the table's order), and the models
 * that take a seed (a variation of their results gets a new one).
 */
export function studioOffer(
  runtime: Pick<Runtime, "models">,
  viewer: { role: string },
): { tools: GenerationTool[]; seeded: string[] } {
  const models = runtime.models.media({ admin: viewer.role === "admin" });
  const served = new Set(models.flatMap((m) => m.tools));
  return {
    tools: GENERATION_TOOLS.filter((t) => served.has(t)),
    seeded: models.filter((m) => m.options.seed).map((m) => m.id),
  };
}

/** One of the viewer's generations, with its chain, or a 404 (unknown, someone else's, or not of this tool). */
export async function ownGeneration(options: {
  db: Db;
  env: Env;
  id: string;
  viewerId: string;
  tool?: GenerationTool;
}) {
  try {
    const g = await getGeneration({
      db: options.db,
      env: options.env,
      id: options.id,
      viewerId: options.viewerId,
      chain: true,
    });
    if (options.tool && g.tool !== options.tool) throw data(null, { status: 404 });
    return g;
  } catch (error) {
    if (error instanceof AppError && error.code === "not_found") throw data(null, { status: 404 });
    throw error;
  }
}

/**
 * One of the viewer's own images named by `?input=` (an output of one of their generations, or an upload), as a
 * form's input image; anything else is ignored.
 */
export async function inputOfUrl(options: { db: Db; url: URL; viewerId: string }): Promise<InputImage | null> {
  const id = options.url.searchParams.get("input");
  if (!id) return null;
  const image = await getOwnImage({ db: options.db, userId: options.viewerId, assetId: id }).catch(() => null);
  if (!image) return null;
  return {
    assetId: image.id,
    preview: image.thumbUrl ?? image.url,
    label: image.prompt ?? image.id,
    // The whole image, for the mask editor to paint over at its size.
    full: image.url,
    ...(image.width && image.height ? { width: image.width, height: image.height } : {}),
  };
}

/**
 * The result a studio was opened to remix (`?remix=`): one shown publicly (public, finished, neither hidden nor
 * flagged), with its settings; null for any other id.
 */
export async function remixSource(options: { db: Db; env: Env; url: URL; viewerId: string }) {
  const id = options.url.searchParams.get("remix");
  if (!id || !isUuid(id)) return null;
  const [g, shown] = await Promise.all([
    getGeneration({ db: options.db, env: options.env, id, viewerId: options.viewerId, allowPublic: true }).catch(
      () => null,
    ),
    getPublicResult({ db: options.db, id, viewerId: options.viewerId }),
  ]);
  return g && shown ? g : null;
}

/**
 * What a tool's form starts with: the settings of one of the viewer's generations (`?from=`, "reuse settings"),
 * or a prompt handed over by another page (`?prompt=`), and an image of theirs to start from (`?input=`, a result's
 * "Upscale", "Edit"…).
 */
export async function initialSettings(options: {
  db: Db;
  env: Env;
  url: URL;
  viewerId: string;
}): Promise<ImageSettings> {
  const from = options.url.searchParams.get("from");
  const prompt = options.url.searchParams.get("prompt")?.slice(0, 2000);
  const [g, input] = await Promise.all([
    from
      ? getGeneration({ db: options.db, env: options.env, id: from, viewerId: options.viewerId }).catch(() => null)
      : null,
    inputOfUrl(options),
  ]);
  const given = input ? { input } : {};
  const remixed = await remixSource(options);
  if (remixed && remixed.kind === "image") {
    // Its model, prompt and settings; its input image only when it is the viewer's own.
    return {
      model: remixed.model.id,
      prompt: remixed.prompt,
      negativePrompt: remixed.negativePrompt,
      aspectRatio: remixed.params.aspectRatio as ImageSettings["aspectRatio"],
      count: remixed.params.count,
      seed: remixed.params.seed,
      strength: remixed.params.strength,
      ...(remixed.params.resolution !== undefined ? { resolution: remixed.params.resolution } : {}),
      ...(remixed.params.options ? { options: remixed.params.options } : {}),
      ...(remixed.params.scale !== undefined ? { scale: remixed.params.scale } : {}),
      remixOf: { id: remixed.id, prompt: remixed.prompt },
      ...given,
    };
  }
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
      ...given,
    };
  }
  return { ...(prompt ? { prompt } : {}), ...given };
}

/** The head and translations of a studio page: its title from the studio namespace, never indexed. */
export function studioPage(context: Ctx, request: Request, titleKey: string) {
  const { seo, i18n } = pageMeta(context, request, ["studio"], (t) => ({
    title: t(`studio:${titleKey}`),
    noindex: true,
  }));
  return { seo, i18n };
}
