import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parameterFieldSchema } from "#common/model-parameters.ts";
import { comboChoices, inputSpec, isLink } from "./graph.ts";
import type { ApiGraph, ObjectInfo, Workflow, WorkflowSlot } from "./types.ts";
import {
  WorkflowRefusal,
  applyInputs,
  framesFor,
  missingFiles,
  missingNodes,
  parseWorkflowFile,
  readWorkflow,
  settingField,
  sizeFor,
} from "./workflow.ts";

const root = new URL("../../../", import.meta.url);
const text = (path: string) => readFileSync(new URL(path, root), "utf8");
const objectInfo = JSON.parse(text("tests/fakes/schemas/comfyui-object-info.json")) as ObjectInfo;
const fixture = (name: string) => text(`tests/fakes/schemas/comfyui-workflows/${name}`);
const apiFixture = (name: string) => JSON.parse(fixture(name)) as ApiGraph;

const slot = (w: Workflow, name: string): WorkflowSlot => {
  const found = w.slots.find((s) => s.name === name);
  if (!found) throw new Error(`no slot ${name} among ${w.slots.map((s) => s.name).join(", ")}`);
  return found;
};
const roles = (w: Workflow) =>
  Object.fromEntries(w.slots.filter((s) => s.role !== "setting").map((s) => [s.role, s.targets]));
const settings = (w: Workflow) => w.slots.filter((s) => s.role === "setting").map((s) => s.name);

function refusal(run: () => unknown): WorkflowRefusal {
  try {
    run();
  } catch (error) {
    if (error instanceof WorkflowRefusal) return error;
    throw error;
  }
  throw new Error("not refused");
}

const EXAMPLES = {
  "docs/comfyui/text-to-image.json": text("docs/comfyui/text-to-image.json"),
  "docs/comfyui/inpaint.json": text("docs/comfyui/inpaint.json"),
  "default-api.json": fixture("default-api.json"),
  "flux-api.json": fixture("flux-api.json"),
  "sdxl-api.json": fixture("sdxl-api.json"),
  "wan-image-to-video-api.json": fixture("wan-image-to-video-api.json"),
};

describe("the fixtures and examples", () => {
  it.each(Object.entries(EXAMPLES))(
    "%s uses only nodes, inputs and links the server's object_info declares",
    (_, json) => {
      const graph = JSON.parse(json) as ApiGraph;
      for (const [id, node] of Object.entries(graph)) {
        const info = objectInfo[node.class_type];
        expect(info, `${id} ${node.class_type}`).toBeDefined();
        const required = Object.keys(info!.input.required ?? {});
        for (const name of required) expect(node.inputs, `${id}.${name}`).toHaveProperty([name]);
        for (const [name, value] of Object.entries(node.inputs)) {
          const spec = inputSpec(info, name);
          expect(spec, `${id} ${node.class_type}.${name}`).toBeDefined();
          if (isLink(value)) {
            const source = graph[value[0]]!;
            const type = objectInfo[source.class_type]!.output[value[1]];
            expect(type, `${id}.${name} from ${value[0]}`).toBe(spec![0]);
          } else if (
            comboChoices(spec) &&
            !(node.class_type === "CheckpointLoaderSimple" && value === "sd_xl_refiner_1.0.safetensors")
          ) {
            expect(comboChoices(spec), `${id}.${name}`).toContain(value);
          }
        }
      }
    },
  );

  it("object_info sends classic combos as lists and newer ones as COMBO with options, and no PrimitiveNode", () => {
    expect(objectInfo.KSampler!.input.required!.sampler_name![0]).toContain("dpmpp_2m");
    expect(objectInfo.CheckpointLoaderSimple!.input.required!.ckpt_name![0]).toEqual([
      "sd_xl_base_1.0.safetensors",
      "v1-5-pruned-emaonly-fp16.safetensors",
    ]);
    expect(objectInfo.SaveWEBM!.input.required!.codec).toEqual([
      "COMBO",
      { multiselect: false, options: ["vp9", "av1"] },
    ]);
    expect(objectInfo.PrimitiveNode).toBeUndefined();
  });
});

describe("parseWorkflowFile", () => {
  it("turns the UI format into what ComfyUI's API export gives for the same graph", () => {
    expect(parseWorkflowFile(fixture("default-ui.json"), objectInfo)).toEqual(apiFixture("default-api.json"));
  });

  it("follows Reroutes and PrimitiveNodes, passes bypassed nodes through, drops muted nodes and notes", () => {
    const graph = parseWorkflowFile(fixture("flux-ui.json"), objectInfo);
    expect(graph).toEqual(apiFixture("flux-api.json"));
    expect(graph["30"]).toBeUndefined(); // the bypassed LoRA
    expect(graph["31"]).toBeUndefined(); // the muted preview
    expect(graph["37"]).toBeUndefined(); // the note
  });

  it("reads the API format as is, and a /prompt body holding it", () => {
    const api = apiFixture("default-api.json");
    expect(parseWorkflowFile(fixture("default-api.json"))).toEqual(api);
    expect(parseWorkflowFile(`\uFEFF${fixture("default-api.json")}`)).toEqual(api);
    expect(parseWorkflowFile(JSON.stringify({ prompt: api, client_id: "x" }))).toEqual(api);
  });

  it("reads a node's widget values saved by name, and skips the upload button's value", () => {
    const ui = {
      nodes: [
        { id: 1, type: "LoadImageMask", mode: 0, widgets_values: ["m.png", "red", "image"], outputs: [] },
        { id: 2, type: "SaveAnimatedWEBP", mode: 0, widgets_values: { fps: 12, filename_prefix: "anim" } },
      ],
      links: [],
    };
    const graph = parseWorkflowFile(JSON.stringify(ui), objectInfo);
    expect(graph["1"]!.inputs).toEqual({ image: "m.png", channel: "red" });
    expect(graph["2"]!.inputs).toEqual({ fps: 12, filename_prefix: "anim" });
  });

  it("refuses what is not a workflow, with a code and a line naming the node", () => {
    expect(refusal(() => parseWorkflowFile("{not json")).code).toBe("not_json");
    expect(refusal(() => parseWorkflowFile("[1, 2]")).code).toBe("not_workflow");
    expect(refusal(() => parseWorkflowFile('{"a": 1}')).code).toBe("not_workflow");
    expect(refusal(() => parseWorkflowFile(`"${"x".repeat(2 * 1024 * 1024)}"`)).code).toBe("too_large");

    const many = Object.fromEntries(
      Array.from({ length: 501 }, (_, i) => [String(i), { class_type: "PreviewImage", inputs: {} }]),
    );
    expect(refusal(() => parseWorkflowFile(JSON.stringify(many))).code).toBe("too_large");

    const noType = refusal(() =>
      parseWorkflowFile('{"3": {"class_type": "KSampler", "inputs": {}}, "4": {"inputs": {}}}'),
    );
    expect(noType.code).toBe("bad_node");
    expect(noType.message).toBe("Node 4 has no class_type.");

    const api = apiFixture("default-api.json");
    api["3"]!.inputs.model = ["99", 0];
    const dangling = refusal(() => parseWorkflowFile(JSON.stringify(api)));
    expect(dangling.code).toBe("missing_link");
    expect(dangling.nodeId).toBe("3");
    expect(dangling.message).toBe(
      'Node 3 (KSampler) takes its input "model" from node 99, which is not in the workflow.',
    );
  });

  it("takes no name for one of JavaScript's own (a link to node constructor, a node called __proto__)", () => {
    const api = apiFixture("default-api.json");
    api["3"]!.inputs.model = ["constructor", 0];
    expect(refusal(() => parseWorkflowFile(JSON.stringify(api))).code).toBe("missing_link");
    expect(refusal(() => readWorkflow(api, objectInfo)).code).toBe("missing_link");

    const proto =
      '{"__proto__": {"class_type": "SaveImage", "inputs": {}}, "9": {"class_type": "SaveImage", "inputs": {}}}';
    expect(refusal(() => parseWorkflowFile(proto)).code).toBe("bad_node");

    const ui = JSON.parse(fixture("default-ui.json")) as { nodes: Array<{ type: string }> };
    ui.nodes[0]!.type = "constructor";
    expect(refusal(() => parseWorkflowFile(JSON.stringify(ui), objectInfo)).code).toBe("unknown_node");

    const odd = apiFixture("default-api.json");
    odd["20"] = { class_type: "toString", inputs: { constructor: 3, images: ["8", 0] } };
    const w = readWorkflow(odd, objectInfo);
    expect(slot(w, "constructor")).toMatchObject({ type: "integer", value: 3 });
    expect(settingField(slot(w, "constructor")).label).toBe("Constructor");
    expect(missingNodes(w, objectInfo)).toEqual(["toString"]);
    expect(missingFiles(w, objectInfo)).toEqual([]);
  });

  it("refuses the UI format without the server's node list, and nodes the list lacks", () => {
    const needs = refusal(() => parseWorkflowFile(fixture("default-ui.json")));
    expect(needs.code).toBe("needs_object_info");
    expect(needs.message).toContain("/object_info");

    const { KSampler: _, ...without } = objectInfo;
    const unknown = refusal(() => parseWorkflowFile(fixture("default-ui.json"), without));
    expect(unknown.code).toBe("unknown_node");
    expect(unknown.message).toContain("Node 3 (KSampler)");
  });

  it("refuses a UI link to a node that is not there", () => {
    const ui = JSON.parse(fixture("default-ui.json")) as { links: number[][] };
    ui.links = ui.links.map((l) => (l[0] === 1 ? [1, 77, 0, 3, 0] : l));
    const error = refusal(() => parseWorkflowFile(JSON.stringify(ui), objectInfo));
    expect(error.code).toBe("missing_link");
    expect(error.message).toBe("Node 3 (KSampler) is linked to node 77, which is not in the workflow.");
  });

  it("refuses subgraphs and group nodes as unsupported", () => {
    const ui = JSON.parse(fixture("default-ui.json")) as {
      nodes: Array<{ id: number; type: string }>;
      definitions?: unknown;
      extra: Record<string, unknown>;
    };
    const id = "a2c1f7e4-6b3d-4f0e-9d1a-3c5b7e9f2a10";
    ui.nodes.push({ id: 57, type: id });
    ui.definitions = { subgraphs: [{ id, name: "Upscale" }] };
    const sub = refusal(() => parseWorkflowFile(JSON.stringify(ui), objectInfo));
    expect(sub.code).toBe("unsupported_subgraph");
    expect(sub.nodeId).toBe("57");
    expect(sub.message).toContain('Node 57 is a subgraph ("Upscale")');

    ui.nodes[ui.nodes.length - 1] = { id: 58, type: "workflow>Sampling" };
    const group = refusal(() => parseWorkflowFile(JSON.stringify(ui), objectInfo));
    expect(group.code).toBe("unsupported_subgraph");
    expect(group.message).toContain("Node 58 (workflow>Sampling) is a group node");
  });
});

describe("readWorkflow", () => {
  it("reads ComfyUI's default graph: prompts, seed, size, denoise and the sampler's settings", () => {
    const w = readWorkflow(parseWorkflowFile(fixture("default-ui.json"), objectInfo), objectInfo);
    expect(roles(w)).toEqual({
      prompt: [["6", "text"]],
      negativePrompt: [["7", "text"]],
      seed: [["3", "seed"]],
      width: [["5", "width"]],
      height: [["5", "height"]],
      batch: [["5", "batch_size"]],
      denoise: [["3", "denoise"]],
    });
    expect(settings(w)).toEqual(["steps", "cfg", "sampler_name", "scheduler", "ckpt_name"]);
    expect(slot(w, "prompt").value).toBe("a lighthouse on a rocky coast at sunset, oil painting, warm light");
    expect(slot(w, "width")).toMatchObject({ value: 512, type: "integer", min: 16, max: 16384, step: 8 });
    expect(slot(w, "cfg")).toMatchObject({ type: "number", value: 8, min: 0, max: 100, step: 0.1 });
    expect(slot(w, "ckpt_name").choices).toEqual([
      "sd_xl_base_1.0.safetensors",
      "v1-5-pruned-emaonly-fp16.safetensors",
    ]);
    expect(slot(w, "sampler_name").choices).toContain("uni_pc_bh2");
    expect(w.outputs).toEqual([{ nodeId: "9", classType: "SaveImage", kind: "image" }]);
    expect(w.kind).toBe("image");
    expect(w.version).toBe(1);
    expect(w.nodeTypes).toEqual([
      "CLIPTextEncode",
      "CheckpointLoaderSimple",
      "EmptyLatentImage",
      "KSampler",
      "SaveImage",
      "VAEDecode",
    ]);
    expect(w.maskInAlpha).toBeUndefined();
  });

  it("hashes the graph, not its key order", () => {
    const a = readWorkflow(apiFixture("default-api.json"));
    const reordered = Object.fromEntries(Object.entries(apiFixture("default-api.json")).reverse());
    expect(a.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(readWorkflow(reordered).sha256).toBe(a.sha256);
    const changed = apiFixture("default-api.json");
    changed["3"]!.inputs.steps = 21;
    expect(readWorkflow(changed).sha256).not.toBe(a.sha256);
  });

  it("without object_info, types settings from their values", () => {
    const w = readWorkflow(apiFixture("default-api.json"));
    expect(slot(w, "steps")).toMatchObject({ type: "integer", value: 20 });
    expect(slot(w, "sampler_name")).toMatchObject({ type: "string", value: "euler" });
    expect(slot(w, "sampler_name").choices).toBeUndefined();
    expect(roles(w).prompt).toEqual([["6", "text"]]);
  });

  it("SDXL base and refiner: one prompt slot over text_g, text_l and the refiner's text; one seed over both samplers", () => {
    const w = readWorkflow(apiFixture("sdxl-api.json"), objectInfo);
    expect(roles(w)).toMatchObject({
      prompt: [
        ["6", "text_g"],
        ["6", "text_l"],
        ["15", "text"],
      ],
      negativePrompt: [
        ["7", "text_g"],
        ["7", "text_l"],
        ["16", "text"],
      ],
      seed: [
        ["3", "noise_seed"],
        ["11", "noise_seed"],
      ],
      width: [["5", "width"]],
    });
    // PreviewImage is no output when something saves.
    expect(w.outputs).toEqual([{ nodeId: "19", classType: "SaveImage", kind: "image" }]);
    const names = settings(w);
    expect(names).toEqual(expect.arrayContaining(["steps", "steps_2", "cfg", "cfg_2", "width_2", "strength_model"]));
    expect(names).not.toContain("filename_prefix");
    expect(slot(w, "steps_2").targets).toEqual([["11", "steps"]]);
    expect(slot(w, "width_2").targets).toEqual([["6", "width"]]);
    expect(slot(w, "add_noise").choices).toEqual(["enable", "disable"]);
  });

  it("Flux: the prompt is the string node feeding clip_l and t5xxl, through FluxGuidance to BasicGuider; no negative", () => {
    const w = readWorkflow(parseWorkflowFile(fixture("flux-ui.json"), objectInfo), objectInfo);
    expect(roles(w)).toEqual({
      prompt: [["41", "value"]],
      seed: [["25", "noise_seed"]],
      width: [["27", "width"]],
      height: [["27", "height"]],
      batch: [["27", "batch_size"]],
      denoise: [["17", "denoise"]],
    });
    expect(slot(w, "width")).toMatchObject({ value: 896, step: 16 });
    expect(settings(w)).toEqual(
      expect.arrayContaining(["guidance", "guidance_2", "steps", "sampler_name", "unet_name", "weight_dtype"]),
    );
    expect(w.nodeTypes).not.toContain("LoraLoaderModelOnly");
  });

  it("Flux's ModelSamplingFlux takes the latent's size too", () => {
    const graph = apiFixture("flux-api.json");
    graph["30"] = {
      class_type: "ModelSamplingFlux",
      inputs: { max_shift: 1.15, base_shift: 0.5, width: 896, height: 1152, model: ["12", 0] },
    };
    graph["22"]!.inputs.model = ["30", 0];
    graph["17"]!.inputs.model = ["30", 0];
    const w = readWorkflow(graph, objectInfo);
    expect(roles(w)).toMatchObject({
      width: [
        ["27", "width"],
        ["30", "width"],
      ],
      height: [
        ["27", "height"],
        ["30", "height"],
      ],
    });
    expect(settings(w)).toEqual(expect.arrayContaining(["max_shift", "base_shift"]));
    expect(settings(w)).not.toContain("width_2");
    expect(applyInputs(w, { width: 1024, height: 768 })["30"]!.inputs).toMatchObject({ width: 1024, height: 768 });
  });

  it("Wan image to video: a video, its prompts through WanImageToVideo, the start image, frames and frame rate", () => {
    const w = readWorkflow(apiFixture("wan-image-to-video-api.json"), objectInfo);
    expect(w.kind).toBe("video");
    expect(w.outputs).toEqual([{ nodeId: "58", classType: "SaveVideo", kind: "video" }]);
    expect(roles(w)).toEqual({
      prompt: [["6", "text"]],
      negativePrompt: [["7", "text"]],
      seed: [["3", "seed"]],
      width: [["50", "width"]],
      height: [["50", "height"]],
      batch: [["50", "batch_size"]],
      frames: [["50", "length"]],
      fps: [["57", "fps"]],
      denoise: [["3", "denoise"]],
      image: [["52", "image"]],
    });
    expect(slot(w, "image").type).toBe("image");
    expect(settings(w)).not.toContain("image");
    expect(framesFor(w, 5)).toBe(81);
    expect(framesFor(w, 2)).toBe(33);
    expect(sizeFor(w, "16:9")).toEqual({ width: 848, height: 480 });
  });

  it("a video saved by SaveWEBM: its frame rate, and frames counted as the workflow counts them", () => {
    const graph = apiFixture("wan-image-to-video-api.json");
    delete graph["57"];
    delete graph["58"];
    graph["59"] = {
      class_type: "SaveWEBM",
      inputs: { images: ["8", 0], filename_prefix: "wan", codec: "vp9", fps: 24, crf: 32 },
    };
    const w = readWorkflow(graph, objectInfo);
    expect(w.kind).toBe("video");
    expect(w.outputs).toEqual([{ nodeId: "59", classType: "SaveWEBM", kind: "video" }]);
    expect(roles(w).fps).toEqual([["59", "fps"]]);
    expect(settings(w)).toEqual(expect.arrayContaining(["codec", "crf"]));
    expect(framesFor(w, 2)).toBe(49);
    graph["50"]!.inputs.length = 32;
    expect(framesFor(readWorkflow(graph, objectInfo), 2)).toBe(48);
    expect(framesFor(readWorkflow(graph, objectInfo), 1000)).toBe(16384);
  });

  it("the inpainting example: the image, the mask from LoadImageMask, its channel a setting", () => {
    const w = readWorkflow(parseWorkflowFile(text("docs/comfyui/inpaint.json")), objectInfo);
    expect(roles(w)).toMatchObject({ image: [["10", "image"]], mask: [["11", "image"]] });
    expect(slot(w, "channel")).toMatchObject({ value: "red", choices: ["alpha", "red", "green", "blue"] });
    expect(settings(w)).toContain("grow_mask_by");
    expect(w.maskInAlpha).toBeUndefined();
    expect(missingFiles(w, objectInfo)).toEqual([]);
    expect(missingNodes(w, objectInfo)).toEqual([]);
  });

  it("a mask taken from LoadImage's own MASK output travels in the image's alpha", () => {
    const graph = apiFixture("default-api.json");
    graph["10"] = { class_type: "LoadImage", inputs: { image: "example.png" } };
    graph["11"] = { class_type: "VAEEncode", inputs: { pixels: ["10", 0], vae: ["4", 2] } };
    graph["12"] = { class_type: "SetLatentNoiseMask", inputs: { samples: ["11", 0], mask: ["10", 1] } };
    graph["3"]!.inputs.latent_image = ["12", 0];
    graph["3"]!.inputs.denoise = 0.6;
    delete graph["5"];
    const w = readWorkflow(graph, objectInfo);
    expect(w.maskInAlpha).toBe(true);
    expect(roles(w)).toMatchObject({ image: [["10", "image"]], denoise: [["3", "denoise"]] });
    expect(roles(w).mask).toBeUndefined();
    expect(slot(w, "denoise").value).toBe(0.6);
  });

  it("a second LoadImage feeding a last-frame input is the end image", () => {
    const graph = apiFixture("wan-image-to-video-api.json");
    graph["60"] = { class_type: "LoadImage", inputs: { image: "mask.png" } };
    graph["50"] = {
      class_type: "WanFirstLastFrameToVideo",
      inputs: { ...graph["50"]!.inputs, end_image: ["60", 0] },
    };
    delete graph["50"]!.inputs.clip_vision_output;
    const w = readWorkflow(graph, objectInfo);
    expect(roles(w)).toMatchObject({ image: [["52", "image"]], endImage: [["60", "image"]] });
  });

  it("follows conditioning through ConditioningCombine and ControlNetApplyAdvanced to the sampler", () => {
    const graph = apiFixture("default-api.json");
    graph["20"] = { class_type: "CLIPTextEncode", inputs: { text: "in the style of a woodcut", clip: ["4", 1] } };
    graph["21"] = {
      class_type: "ConditioningCombine",
      inputs: { conditioning_1: ["6", 0], conditioning_2: ["20", 0] },
    };
    graph["22"] = { class_type: "ControlNetLoader", inputs: { control_net_name: "control_v11p_sd15_canny.pth" } };
    graph["23"] = { class_type: "LoadImage", inputs: { image: "example.png" } };
    graph["24"] = {
      class_type: "ControlNetApplyAdvanced",
      inputs: {
        positive: ["21", 0],
        negative: ["7", 0],
        control_net: ["22", 0],
        image: ["23", 0],
        strength: 0.8,
        start_percent: 0,
        end_percent: 1,
      },
    };
    graph["3"]!.inputs.positive = ["24", 0];
    graph["3"]!.inputs.negative = ["24", 1];
    const w = readWorkflow(graph, objectInfo);
    expect(roles(w)).toMatchObject({
      prompt: [
        ["6", "text"],
        ["20", "text"],
      ],
      negativePrompt: [["7", "text"]],
    });
    expect(settings(w)).toContain("strength");
  });

  it("the image is the one encoded into the latent, not a ControlNet's guide", () => {
    const graph = apiFixture("default-api.json");
    graph["10"] = { class_type: "LoadImage", inputs: { image: "example.png" } };
    graph["11"] = { class_type: "LoadImage", inputs: { image: "mask.png" } };
    graph["12"] = { class_type: "VAEEncode", inputs: { pixels: ["11", 0], vae: ["4", 2] } };
    graph["13"] = { class_type: "ControlNetLoader", inputs: { control_net_name: "control_v11p_sd15_canny.pth" } };
    graph["14"] = {
      class_type: "ControlNetApplyAdvanced",
      inputs: {
        positive: ["6", 0],
        negative: ["7", 0],
        control_net: ["13", 0],
        image: ["10", 0],
        strength: 1,
        start_percent: 0,
        end_percent: 1,
      },
    };
    graph["3"]!.inputs = { ...graph["3"]!.inputs, positive: ["14", 0], negative: ["14", 1], latent_image: ["12", 0] };
    delete graph["5"];
    const w = readWorkflow(graph, objectInfo);
    expect(roles(w).image).toEqual([["11", "image"]]);
    expect(slot(w, "image_2")).toMatchObject({ role: "setting", targets: [["10", "image"]], value: "example.png" });
  });

  it("refuses a workflow that saves nothing", () => {
    const graph = apiFixture("default-api.json");
    delete graph["9"];
    const error = refusal(() => readWorkflow(graph, objectInfo));
    expect(error.code).toBe("no_output");
    expect(error.message).toContain("saves nothing");
  });

  it("counts PreviewImage as the output when nothing else saves", () => {
    const graph = apiFixture("default-api.json");
    graph["9"] = { class_type: "PreviewImage", inputs: { images: ["8", 0] } };
    expect(readWorkflow(graph).outputs).toEqual([{ nodeId: "9", classType: "PreviewImage", kind: "image" }]);
  });
});

describe("applyInputs", () => {
  it("writes the values at their nodes and leaves the stored graph as it was", () => {
    const w = readWorkflow(apiFixture("sdxl-api.json"), objectInfo);
    const before = structuredClone(w.graph);
    const graph = applyInputs(w, {
      prompt: "a red bicycle",
      negativePrompt: "rust",
      seed: 42,
      width: 1152,
      height: 896,
      settings: { steps: 30, sampler_name: "euler_ancestral" },
    });
    expect(graph["6"]!.inputs).toMatchObject({ text_g: "a red bicycle", text_l: "a red bicycle", width: 4096 });
    expect(graph["15"]!.inputs.text).toBe("a red bicycle");
    expect(graph["7"]!.inputs).toMatchObject({ text_g: "rust", text_l: "rust" });
    expect(graph["16"]!.inputs.text).toBe("rust");
    expect(graph["3"]!.inputs).toMatchObject({ noise_seed: 42, steps: 30, sampler_name: "euler_ancestral" });
    expect(graph["11"]!.inputs).toMatchObject({ noise_seed: 42, steps: 25 });
    expect(graph["5"]!.inputs).toMatchObject({ width: 1152, height: 896 });
    expect(w.graph).toEqual(before);
    expect(w.graph["3"]!.inputs.noise_seed).toBe(721897303308196);
  });

  it("writes the uploaded file names and a video's frames and frame rate", () => {
    const w = readWorkflow(apiFixture("wan-image-to-video-api.json"), objectInfo);
    const graph = applyInputs(w, { image: "upload (1).png", frames: 49, fps: 24, negativePrompt: "text" });
    expect(graph["52"]!.inputs.image).toBe("upload (1).png");
    expect(graph["50"]!.inputs.length).toBe(49);
    expect(graph["57"]!.inputs.fps).toBe(24);
  });

  it("leaves out a common value the workflow has no slot for", () => {
    const w = readWorkflow(parseWorkflowFile(fixture("flux-ui.json"), objectInfo), objectInfo);
    expect(applyInputs(w, { negativePrompt: "blurry", prompt: "a hare" })["41"]!.inputs.value).toBe("a hare");
  });

  it("refuses a setting it lacks, a value of the wrong type, outside the limits or not among the choices", () => {
    const w = readWorkflow(apiFixture("default-api.json"), objectInfo);
    const cases: Array<[Parameters<typeof applyInputs>[1], string, string]> = [
      [{ settings: { nope: 1 } }, "unknown_setting", "nope"],
      [{ settings: { steps: 2.5 } }, "bad_value", "steps"],
      [{ settings: { steps: "20" } }, "bad_value", "steps"],
      [{ settings: { steps: 0 } }, "bad_value", "steps"],
      [{ settings: { cfg: 101 } }, "bad_value", "cfg"],
      [{ settings: { sampler_name: "warp_drive" } }, "bad_value", "sampler_name"],
      [{ width: 8 }, "bad_value", "width"],
      [{ seed: -1 }, "bad_value", "seed"],
    ];
    for (const [values, code, name] of cases) {
      const error = refusal(() => applyInputs(w, values));
      expect(error.code, JSON.stringify(values)).toBe(code);
      expect(error.slot).toBe(name);
      expect(error.message).toContain(`"${name}"`);
    }
  });
});

describe("sizes, frames and what a server lacks", () => {
  const w = readWorkflow(apiFixture("default-api.json"), objectInfo);

  it("keeps the workflow's pixel count for an aspect ratio, in multiples of 8", () => {
    expect(sizeFor(w, "1:1")).toEqual({ width: 512, height: 512 });
    expect(sizeFor(w, "16:9")).toEqual({ width: 680, height: 384 });
    expect(sizeFor(w, "9:16")).toEqual({ width: 384, height: 680 });
    expect(sizeFor(w, "4:3")).toEqual({ width: 592, height: 440 });
  });

  it("uses the latent's step of 16 where it has one", () => {
    const flux = readWorkflow(parseWorkflowFile(fixture("flux-ui.json"), objectInfo), objectInfo);
    const size = sizeFor(flux, "16:9")!;
    expect(size.width % 16).toBe(0);
    expect(size.height % 16).toBe(0);
    expect(size).toEqual({ width: 1360, height: 768 });
  });

  it("has no size or frames for a workflow without them", () => {
    const graph = {
      "1": { class_type: "LoadImage", inputs: { image: "a.png" } },
      "2": { class_type: "SaveImage", inputs: { images: ["1", 0] } },
    } as ApiGraph;
    const plain = readWorkflow(graph);
    expect(sizeFor(plain, "1:1")).toBeUndefined();
    expect(framesFor(plain, 3)).toBeUndefined();
  });

  it("names the node types and files a server lacks", () => {
    const wan = readWorkflow(apiFixture("wan-image-to-video-api.json"), objectInfo);
    const { SaveVideo: _, CreateVideo: __, ...older } = objectInfo;
    expect(missingNodes(wan, older)).toEqual(["CreateVideo", "SaveVideo"]);
    expect(missingNodes(wan, objectInfo)).toEqual([]);

    const sdxl = readWorkflow(apiFixture("sdxl-api.json"), objectInfo);
    expect(missingFiles(sdxl, objectInfo)).toEqual([
      { nodeId: "12", classType: "CheckpointLoaderSimple", input: "ckpt_name", value: "sd_xl_refiner_1.0.safetensors" },
    ]);
    // The image the job uploads is not a missing file.
    const uploaded = structuredClone(wan);
    uploaded.graph["52"]!.inputs.image = "not-on-the-server.png";
    expect(missingFiles(uploaded, objectInfo)).toEqual([]);
  });
});

describe("settingField", () => {
  const w = readWorkflow(apiFixture("default-api.json"), objectInfo);

  it("turns a slot into a declarative parameter with its limits, choices and the workflow's value", () => {
    expect(settingField(slot(w, "steps"))).toEqual({
      name: "steps",
      type: "integer",
      label: "Steps",
      default: 20,
      minimum: 1,
      maximum: 10000,
    });
    const sampler = settingField(slot(w, "sampler_name"), "Sampler");
    expect(sampler).toMatchObject({ name: "sampler_name", type: "string", label: "Sampler", default: "euler" });
    expect(sampler.choices).toContain("dpmpp_2m");
    expect(settingField(slot(w, "ckpt_name")).label).toBe("Checkpoint name");
    expect(settingField(slot(w, "cfg")).label).toBe("CFG");
    for (const s of w.slots.filter((x) => x.role === "setting")) {
      expect(parameterFieldSchema.safeParse(settingField(s)).success, s.name).toBe(true);
    }
  });
});
