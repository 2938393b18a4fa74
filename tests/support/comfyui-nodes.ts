import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { ObjectInfo } from "#server/providers/comfyui/types.ts";

/*
 * A ComfyUI server as far as reading a workflow goes: the node list the example text-to-image workflow needs and the
 * health a pool asks for. It runs no prompt (the console's tests read, add and version workflows; they run none).
 */

const node = (input: Record<string, unknown>, output: string[] = []) => ({
  input: { required: input },
  output,
  output_name: output,
  name: "",
  display_name: null,
  category: "",
  output_node: output.length === 0,
});
/** The node types the text-to-image workflow needs, as a server's `/object_info` lists them. */
export const NODES = {
  CheckpointLoaderSimple: node({ ckpt_name: [["v1-5-pruned-emaonly-fp16.safetensors"], {}] }, ["MODEL", "CLIP", "VAE"]),
  CLIPTextEncode: node({ text: ["STRING", { multiline: true }], clip: ["CLIP"] }, ["CONDITIONING"]),
  EmptyLatentImage: node(
    {
      width: ["INT", { default: 512, min: 16, max: 16384, step: 8 }],
      height: ["INT", { default: 512, min: 16, max: 16384, step: 8 }],
      batch_size: ["INT", { default: 1, min: 1, max: 4096 }],
    },
    ["LATENT"],
  ),
  KSampler: node(
    {
      model: ["MODEL"],
      seed: ["INT", { default: 0, min: 0, max: Number.MAX_SAFE_INTEGER }],
      steps: ["INT", { default: 20, min: 1, max: 10000 }],
      cfg: ["FLOAT", { default: 8, min: 0, max: 100, step: 0.1 }],
      sampler_name: [["euler", "dpmpp_2m"], {}],
      scheduler: [["normal", "karras"], {}],
      positive: ["CONDITIONING"],
      negative: ["CONDITIONING"],
      latent_image: ["LATENT"],
      denoise: ["FLOAT", { default: 1, min: 0, max: 1, step: 0.01 }],
    },
    ["LATENT"],
  ),
  VAEDecode: node({ samples: ["LATENT"], vae: ["VAE"] }, ["IMAGE"]),
  SaveImage: node({ images: ["IMAGE"], filename_prefix: ["STRING", { default: "ComfyUI" }] }),
} as unknown as ObjectInfo;

/** A server answering what reading a workflow asks (its node list, its health); `lacks` takes node types away. */
export async function startNodeServer() {
  const state = { lacks: [] as string[] };
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const json = (body: unknown) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (path === "/object_info")
      return json(Object.fromEntries(Object.entries(NODES).filter(([type]) => !state.lacks.includes(type))));
    if (path === "/system_stats") return json({ system: { os: "posix", python_version: "3.12" }, devices: [] });
    if (path === "/queue") return json({ queue_running: [], queue_pending: [] });
    res.writeHead(404).end();
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, state, close: () => new Promise<void>((done) => server.close(() => done())) };
}
