import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { chatCatalog } from "#config/chat-models.ts";
import { modelCatalog } from "#config/models.ts";
import { parseEnv } from "#server/env.ts";
import { isProviderId, providerConfigured, providerDefinition, providers } from "#server/providers/registry.ts";

const env = parseEnv({
  OPENAI_API_KEY: "sk-test",
  REPLICATE_API_TOKEN: "r8_test",
  FAL_KEY: "fal-test",
  COMFYUI_URLS: "http://10.0.0.5:8188, http://10.0.0.6:8188",
  OPENAI_COMPATIBLE_BASE_URL: "http://127.0.0.1:9/v1",
  OPENAI_COMPATIBLE_IMAGE_MODELS: "sdxl",
  OPENAI_COMPATIBLE_CHAT_MODELS: "llama3",
  ANTHROPIC_API_KEY: "sk-ant-test",
  GOOGLE_GENERATIVE_AI_API_KEY: "g-test",
});

describe("provider registry", () => {
  it("lists each provider once, with a connection schema and at least one capability", () => {
    const ids = providers.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const p of providers) {
      expect(p.connectionSchema, p.id).toBeDefined();
      expect(p.capabilities.length, p.id).toBeGreaterThan(0);
      expect(providerDefinition(p.id)).toBe(p);
    }
    expect(isProviderId("nobody")).toBe(false);
    expect(() => providerDefinition("nobody")).toThrow("Unknown provider nobody");
  });

  it("makes a model factory and an input mapping for every capability it claims", () => {
    for (const p of providers) {
      const d = providerDefinition(p.id);
      if (d.capabilities.includes("image"))
        expect([d.id, typeof d.imageModel, typeof d.imageInputs]).toEqual([d.id, "function", "function"]);
      if (d.capabilities.includes("video"))
        expect([d.id, typeof d.videoModel, typeof d.videoInputs]).toEqual([d.id, "function", "function"]);
      if (d.capabilities.includes("chat")) expect([d.id, typeof d.chatModel]).toEqual([d.id, "function"]);
    }
  });

  it("reads each built-in connection from the environment in the shape of its schema, secrets named", () => {
    for (const p of providers) {
      const d = providerDefinition(p.id);
      const settings = d.builtInConnection(env);
      expect(d.connectionSchema.parse(settings), p.id).toEqual(settings);
      for (const secret of d.secrets)
        expect(Object.keys(d.connectionSchema.parse(settings) as object)).toContain(secret);
      expect(providerConfigured(p.id, env), p.id).toBe(true);
      expect(providerConfigured(p.id, parseEnv({ DEMO_MODELS: "off" })), p.id).toBe(false);
    }
  });

  it("is what the catalogs name: every binding's provider is registered and has the model's capability", () => {
    for (const model of modelCatalog) {
      for (const binding of model.bindings) {
        expect(isProviderId(binding.provider), `${model.id} → ${binding.provider}`).toBe(true);
        expect(providerDefinition(binding.provider).capabilities, `${model.id} → ${binding.provider}`).toContain(
          model.kind,
        );
      }
    }
    for (const model of chatCatalog) {
      for (const binding of model.bindings) {
        expect(providerDefinition(binding.provider).capabilities, `${model.id} → ${binding.provider}`).toContain(
          "chat",
        );
      }
    }
  });
});

/** Every source file under a folder, tests left out. */
function sources(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((f) => /\.tsx?$/.test(f) && !/\.test\.tsx?$/.test(f))
    .map((f) => join(dir, f));
}

describe("provider names", () => {
  it("are switched on or compared only inside their provider's folder", () => {
    const names = providers.map((p) => p.id.replace(/[-]/g, "\\-")).join("|");
    const test = new RegExp(`(case|[!=]==)\\s*"(${names})"|"(${names})"\\s*[!=]==`);
    const files = ["server", "app", "common", "config"].flatMap(sources);
    expect(files.length).toBeGreaterThan(100);
    const found = files
      .filter((file) => !providers.some((p) => file.startsWith(join("server", "providers", p.id) + "/")))
      .flatMap((file) =>
        readFileSync(file, "utf8")
          .split("\n")
          .flatMap((line, i) => (test.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
      );
    expect(found).toEqual([]);
  });
});
