import { z } from "zod";
import type { ConnectionCheck } from "#server/providers/definition.ts";
import { defineProvider } from "#server/providers/definition.ts";
import { merge } from "#server/providers/shared.ts";
import { COMFYUI_OPTIONS_KEY, comfyImageModel, comfyVideoModel } from "#server/providers/comfyui/model.ts";
import { poolFor, type PoolServer } from "#server/providers/comfyui/pool.ts";
import { describeWorkflow, lacking, poolNodes } from "#server/providers/comfyui/describe.ts";

/** Prompts a server is given at once by default: one running and one waiting, so its GPU never idles between two. */
export const DEFAULT_MAX_JOBS = 2;

const serverSchema = z.strictObject({
  url: z.url({ protocol: /^https?$/ }),
  /** Its share of the pool's work (1 to 100, by default 1). */
  weight: z.number().int().min(1).max(100).optional(),
  /** The most prompts it is given at once (1 to 64, by default 2). */
  maxJobs: z.number().int().min(1).max(64).optional(),
});

/** Jobs of one account running on a pool at once, by default: the rest of its jobs wait while others' go first. */
export const DEFAULT_PER_ACCOUNT = 2;

const HEADER = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+:\s*\S.*$/;

const connectionSchema = z.object({
  /** The pool's servers. */
  servers: z
    .array(serverSchema)
    .min(1)
    .max(32)
    .refine((servers) => new Set(servers.map((s) => s.url)).size === servers.length, "each server once"),
  /** Jobs of one account running on the pool at once (1 to 64, by default 2). */
  perAccount: z.number().int().min(1).max(64).optional(),
  /** A header sent to a server (by its URL), as "Name: value": the credential a proxy in front of it asks for. */
  headers: z.record(z.string(), z.string().max(4000).regex(HEADER, 'a header as "Name: value"')).optional(),
});
type Settings = z.infer<typeof connectionSchema>;

/** The pool's servers with their defaults and headers, as the pool takes them. */
export function poolServers(settings: Settings): PoolServer[] {
  return (settings.servers ?? []).map((s) => {
    const header = settings.headers?.[s.url];
    const colon = header?.indexOf(":") ?? -1;
    return {
      url: s.url,
      weight: s.weight ?? 1,
      maxJobs: s.maxJobs ?? DEFAULT_MAX_JOBS,
      ...(header && colon > 0 && { headers: { [header.slice(0, colon).trim()]: header.slice(colon + 1).trim() } }),
    };
  });
}

/**
 * ComfyUI: the operator's own GPU servers, as a pool behind one connection, running workflows uploaded as models.
 * Its servers are on the operator's network by nature: plain http and private addresses are allowed for them.
 */
export const comfyuiProvider = defineProvider({
  id: "comfyui",
  capabilities: ["image", "video"],
  connectionSchema,
  secrets: ["headers"],
  ownNetwork: true,
  documentModels: true,
  builtInConnection: (env): Settings => {
    const urls = (env.COMFYUI_URLS ?? "")
      .split(",")
      .map((url) => url.trim())
      .filter(Boolean);
    return {
      servers: urls.map((url) => ({ url })),
      headers: env.COMFYUI_HEADER ? Object.fromEntries(urls.map((url) => [url, env.COMFYUI_HEADER!])) : undefined,
    };
  },
  configured: (settings) => (settings.servers?.length ?? 0) > 0,
  addresses: (settings) => (settings.servers ?? []).map((s) => s.url),
  pool: {
    perAccount: (settings) => settings.perAccount ?? DEFAULT_PER_ACCOUNT,
    room: (settings, signal, waitMs) => poolFor(poolServers(settings)).room(signal, waitMs),
  },
  optionsKey: COMFYUI_OPTIONS_KEY,
  imageModel: async (settings, modelId, hooks) => {
    if (!hooks?.workflow) throw new Error(`the ComfyUI model ${modelId} has no workflow`);
    return comfyImageModel(poolFor(poolServers(settings)), hooks.workflow, modelId, hooks);
  },
  videoModel: async (settings, modelId, hooks) => {
    if (!hooks?.workflow) throw new Error(`the ComfyUI model ${modelId} has no workflow`);
    return comfyVideoModel(poolFor(poolServers(settings)), hooks.workflow, modelId, hooks);
  },
  check: (settings, signal) => checkPool(settings, signal),
  ready: async (settings, binding, signal) => {
    if (!binding.workflow) return [`the model ${binding.model} has no workflow`];
    const servers = await poolNodes(poolFor(poolServers(settings)), signal);
    // A server that does not answer is out of the pool until it does; should it lack a node then, the pool sends its
    // jobs elsewhere. It does not hold the model back, but a pool none of whose servers answers does.
    if (servers.every((s) => !s.info))
      return servers.map((s) => `${s.url} does not answer (${s.problem}); its nodes cannot be checked`);
    return lacking(binding.workflow, servers);
  },
  describe: (settings, modelId, signal, options) =>
    describeWorkflow(poolFor(poolServers(settings)), modelId, options?.document, signal),
  // The prompt as written (a workflow has no style), the negative prompt and the strength for the workflow's nodes.
  imageInputs: (_modelId, req) => ({
    prompt: req.prompt,
    aspectRatio: req.aspectRatio,
    seed: req.seed,
    providerOptions: merge(
      req.providerOptions ?? {},
      COMFYUI_OPTIONS_KEY,
      {},
      { negativePrompt: req.negativePrompt, strength: req.inputImage ? req.strength : undefined },
    ),
  }),
  videoInputs: (_modelId, req) => ({
    prompt: req.prompt,
    providerOptions: merge(req.providerOptions ?? {}, COMFYUI_OPTIONS_KEY, {}, { negativePrompt: req.negativePrompt }),
  }),
});

/**
 * Asks every server of the pool how it is. Works when at least one answers; the detail names each server's GPU, and
 * those that do not answer.
 */
async function checkPool(settings: Settings, signal: AbortSignal): Promise<ConnectionCheck> {
  const health = await poolFor(poolServers(settings)).probe(signal);
  const up = health.filter((h) => h.up);
  const lines = health.map((h) => {
    if (!h.up) return `${h.url} does not answer (${h.problem ?? "no answer"})`;
    const gpu = h.stats?.devices[0];
    const free = gpu ? `, ${(gpu.vram_free / 2 ** 30).toFixed(1)} GiB free` : "";
    return `${h.url}: ${gpu ? gpu.name : "no GPU"}${free}, ${h.queued} queued`;
  });
  // A proxy that refuses the header: the credential is wrong, whatever the other servers say.
  if (health.some((h) => !h.up && /HTTP 40[13]\b/.test(h.problem ?? "")))
    return { ok: false, code: "unauthorized", detail: lines.join("; ") };
  if (up.length === 0) return { ok: false, code: "unreachable", detail: lines.join("; ") };
  return { ok: true, detail: `${up.length} of ${health.length} servers answer. ${lines.join("; ")}` };
}
