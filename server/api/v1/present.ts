import type { GenerationView, MediaView } from "#server/modules/generation/get-generation.ts";
import type { EntryView } from "#server/modules/credits/list-entries.ts";
import type { listModels } from "#server/modules/generation/list-models.ts";
import type { MediaLinks } from "#server/modules/generation/media-links.ts";
import { demoFields } from "#common/demo.ts";
import { parametersJsonSchema } from "#common/model-parameters.ts";

/** How long the links in the public API's answers (and webhooks) open a private file without a session. */
export const API_LINK_SECONDS = 24 * 60 * 60;

/**
 * The public API's JSON: snake_case, absolute URLs, nothing the pages need only. With `links`, file addresses are
 * signed, so that a program holding only its API key can download its private results (for a day).
 */
export function presentMedia(m: MediaView, origin: string, links?: MediaLinks) {
  const address = (path: string) => origin + (links ? links.sign(path, { seconds: API_LINK_SECONDS }) : path);
  return {
    id: m.id,
    url: address(m.url),
    thumbnail_url: m.thumbUrl ? address(m.thumbUrl) : null,
    mime_type: m.mimeType,
    width: m.width,
    height: m.height,
    duration_ms: m.durationMs,
    size_bytes: m.sizeBytes,
  };
}

export function presentGeneration(g: GenerationView, origin: string, links?: MediaLinks) {
  return {
    id: g.id,
    object: "generation" as const,
    kind: g.kind,
    tool: g.tool,
    model: g.model.id,
    prompt: g.prompt,
    negative_prompt: g.negativePrompt,
    aspect_ratio: g.params.aspectRatio,
    count: g.params.count,
    seed: g.params.seed ?? null,
    strength: g.params.strength ?? null,
    style: g.params.style ?? null,
    duration: g.params.duration ?? null,
    resolution: g.params.resolution ?? null,
    audio: g.params.audio ?? null,
    scale: g.params.scale ?? null,
    extend: g.params.extend ?? null,
    options: g.params.options ?? null,
    status: g.status,
    progress: g.progress,
    eta_seconds: g.etaSeconds,
    credits_held: g.creditsHeld,
    credits_charged: g.creditsCharged,
    error: g.error ? { code: g.error.code, message: g.error.message } : null,
    visibility: g.visibility,
    webhook_url: g.webhookUrl,
    outputs: g.outputs.map((m) => presentMedia(m, origin, links)),
    input_image: g.input ? presentMedia(g.input, origin, links) : null,
    mask_image: g.mask ? presentMedia(g.mask, origin, links) : null,
    end_image: g.end ? presentMedia(g.end, origin, links) : null,
    parent_id: g.parentId,
    created_at: g.createdAt,
    started_at: g.startedAt,
    finished_at: g.finishedAt,
    ...demoFields(g.model.offline, origin),
  };
}

export function presentModel(m: ReturnType<typeof listModels>[number]) {
  return {
    id: m.id,
    name: m.name,
    kind: m.kind,
    tools: [...m.tools],
    price: m.price,
    options: {
      aspect_ratios: [...m.options.aspectRatios],
      max_count: m.options.maxCount,
      durations: m.options.durations ? [...m.options.durations] : null,
      styles: m.options.styles ? [...m.options.styles] : null,
      negative_prompt: m.options.negativePrompt,
      seed: m.options.seed,
      strength: m.options.strength,
      resolutions: m.options.resolutions ? [...m.options.resolutions] : null,
      audio: Boolean(m.options.audio),
    },
    parameters: parametersJsonSchema(m.parameters),
    expected_seconds: m.expectedSeconds,
    offline: m.offline,
  };
}

export function presentEntry(e: EntryView) {
  return {
    id: e.id,
    kind: e.kind,
    amount: e.amount,
    held_change: e.heldChange,
    balance_after: e.balanceAfter,
    reference: e.reference ? `${e.reference.type}:${e.reference.id}` : null,
    created_at: e.createdAt.toISOString(),
  };
}
