import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEnv } from "#server/env.ts";
import { builtInConnection, checkConnection, providerDefinition, providers } from "#server/providers/registry.ts";
import { startFakeAnthropic, type FakeAnthropic } from "#tests/fakes/anthropic.ts";
import { startFakeFal, type FakeFal } from "#tests/fakes/fal.ts";
import { startComfyFake, type ComfyFake } from "#tests/fakes/comfyui.ts";
import { startFakeGoogleModels, type FakeGoogleModels } from "#tests/fakes/google-models.ts";
import { startFakeOpenAI, type FakeOpenAI } from "#tests/fakes/openai-images.ts";
import { listen, sendJson, startFakeReplicate, type FakeReplicate } from "#tests/fakes/replicate.ts";

const KEYS = {
  openai: "sk-check-openai-key",
  anthropic: "sk-ant-check-key",
  google: "AIza-check-google-key",
  replicate: "r8_check_token",
  fal: "check-key-id:check-key-secret",
  comfyui: "check-proxy-secret",
};
/** The header a proxy in front of the ComfyUI fake asks for. */
const COMFY_HEADER = "X-Gpu-Key";
const WRONG = "wrong-key-0123456789";

let openai: FakeOpenAI;
let anthropic: FakeAnthropic;
let google: FakeGoogleModels;
let replicate: FakeReplicate;
let fal: FakeFal;
let comfy: ComfyFake;
/** A port nothing listens on. */
let closedPort: number;

beforeAll(async () => {
  [openai, anthropic, google, replicate, fal, comfy] = await Promise.all([
    startFakeOpenAI({ apiKey: KEYS.openai }),
    startFakeAnthropic({ apiKey: KEYS.anthropic }),
    startFakeGoogleModels({ apiKey: KEYS.google }),
    startFakeReplicate({ token: KEYS.replicate }),
    startFakeFal({ key: KEYS.fal }),
    startComfyFake({ requireHeader: { name: COMFY_HEADER, value: KEYS.comfyui } }),
  ]);
  const spare = createServer();
  await new Promise<void>((resolve) => spare.listen(0, "127.0.0.1", resolve));
  closedPort = (spare.address() as AddressInfo).port;
  await new Promise<void>((resolve) => spare.close(() => resolve()));
});

afterAll(async () => {
  await Promise.all([
    openai?.close(),
    anthropic?.close(),
    google?.close(),
    replicate?.close(),
    fal?.close(),
    comfy?.close(),
  ]);
});

/** Each provider's settings against its fake (or a closed port), with a key. */
const cases: Record<string, { settings: (key: string, base?: string) => Record<string, unknown>; key: () => string }> =
  {
    openai: {
      settings: (apiKey, base) => ({ apiKey, baseURL: base ?? openai.apiUrl }),
      key: () => KEYS.openai,
    },
    "openai-compatible": {
      settings: (apiKey, base) => ({ apiKey, baseURL: base ?? openai.apiUrl, imageModels: [], chatModels: [] }),
      key: () => KEYS.openai,
    },
    anthropic: {
      settings: (apiKey, base) => ({ apiKey, baseURL: base ?? anthropic.apiUrl }),
      key: () => KEYS.anthropic,
    },
    google: {
      settings: (apiKey, base) => ({ apiKey, baseURL: base ?? google.apiUrl }),
      key: () => KEYS.google,
    },
    replicate: {
      settings: (apiToken, base) => ({ apiToken, baseURL: base ?? replicate.apiUrl }),
      key: () => KEYS.replicate,
    },
    fal: {
      settings: (apiKey, base) => ({ apiKey, baseURL: base ?? fal.url }),
      key: () => KEYS.fal,
    },
    comfyui: {
      settings: (key, base) => {
        const url = base ?? comfy.url;
        return { servers: [{ url }], headers: { [url]: `${COMFY_HEADER}: ${key}` } };
      },
      key: () => KEYS.comfyui,
    },
  };

describe("connection checks over HTTP", () => {
  it("cover every provider that is not local", () => {
    const remote = providers.filter((p) => !providerDefinition(p.id).local).map((p) => p.id);
    expect(Object.keys(cases).sort()).toEqual([...remote].sort());
    for (const p of providers) expect(typeof providerDefinition(p.id).check, p.id).toBe("function");
  });

  for (const [id, c] of Object.entries(cases)) {
    describe(id, () => {
      it("accepts the right key", async () => {
        expect(await checkConnection(id, c.settings(c.key()))).toMatchObject({ ok: true });
      });

      it("says a wrong key is unauthorized, without repeating it", async () => {
        const result = await checkConnection(id, c.settings(WRONG));
        expect(result).toMatchObject({ ok: false, code: "unauthorized" });
        expect(result.detail).toMatch(/HTTP (401|400)/);
        expect(result.detail).not.toContain(WRONG);
      });

      it("says a closed port is unreachable", async () => {
        const result = await checkConnection(id, c.settings(c.key(), `http://127.0.0.1:${closedPort}/v1`));
        expect(result).toEqual({ ok: false, code: "unreachable", detail: expect.stringContaining("ECONNREFUSED") });
        expect(result.detail).not.toContain(c.key());
      });
    });
  }

  it("reads the built-in connections from the environment's base URLs", async () => {
    const env = parseEnv({
      OPENAI_API_KEY: KEYS.openai,
      OPENAI_BASE_URL: openai.apiUrl,
      ANTHROPIC_API_KEY: KEYS.anthropic,
      ANTHROPIC_BASE_URL: anthropic.apiUrl,
      GOOGLE_GENERATIVE_AI_API_KEY: KEYS.google,
      GOOGLE_BASE_URL: google.apiUrl,
      REPLICATE_API_TOKEN: KEYS.replicate,
      REPLICATE_BASE_URL: replicate.apiUrl,
      FAL_KEY: KEYS.fal,
      FAL_BASE_URL: fal.url,
      OPENAI_COMPATIBLE_BASE_URL: openai.apiUrl,
      OPENAI_COMPATIBLE_API_KEY: KEYS.openai,
      COMFYUI_URLS: comfy.url,
      COMFYUI_HEADER: `${COMFY_HEADER}: ${KEYS.comfyui}`,
    });
    for (const p of providers)
      expect(await checkConnection(p.id, builtInConnection(p.id, env)), p.id).toMatchObject({ ok: true });
  });

  it("tells whose Replicate token it is, and reads fal's pricing rather than running a model", async () => {
    expect(await checkConnection("replicate", cases.replicate!.settings(KEYS.replicate))).toEqual({
      ok: true,
      detail: "account atelier-tests",
    });
    fal.requests = [];
    await checkConnection("fal", cases.fal!.settings(KEYS.fal));
    expect(fal.requests).toEqual([{ method: "GET", path: "/api/v1/models/pricing" }]);
    expect(fal.queue.size).toBe(0);
  });

  it("needs no key for an OpenAI-compatible server that asks for none", async () => {
    const open = await listen(async (req, res) => {
      if (req.headers.authorization) return sendJson(res, 400, { error: { message: "unexpected key" } });
      sendJson(res, 200, { object: "list", data: [{ id: "llama3", object: "model", created: 0, owned_by: "me" }] });
    });
    try {
      const settings = { baseURL: `${open.url}/v1`, imageModels: [], chatModels: ["llama3"] };
      expect(await checkConnection("openai-compatible", settings)).toEqual({ ok: true });
    } finally {
      await open.close();
    }
  });
});

describe("the demo's check", () => {
  it("is ok when the demo is on, refused when it is off", async () => {
    expect(await checkConnection("demo", { enabled: true })).toMatchObject({ ok: true });
    expect(await checkConnection("demo", { enabled: false })).toMatchObject({ ok: false, code: "refused" });
  });
});

describe("checkConnection", () => {
  it("refuses settings its provider's schema refuses, naming the fields and not their values", async () => {
    const result = await checkConnection("openai", { apiKey: KEYS.openai, baseURL: "ftp://files.example/v1" });
    expect(result).toEqual({ ok: false, code: "invalid", detail: expect.stringContaining("baseURL") });
    expect(result.detail).not.toContain("ftp://");
    expect(await checkConnection("openai", "not settings")).toMatchObject({ ok: false, code: "invalid" });
    expect(await checkConnection("nobody", {})).toMatchObject({ ok: false, code: "invalid" });
  });

  it("does not try settings without a key", async () => {
    expect(await checkConnection("openai", { baseURL: openai.apiUrl })).toMatchObject({ ok: false, code: "invalid" });
    expect(await checkConnection("openai-compatible", { imageModels: [], chatModels: [] })).toMatchObject({
      ok: false,
      code: "invalid",
    });
  });
});

describe("what an answer means", () => {
  let server: { url: string; close(): Promise<void> };
  const seen: IncomingMessage[] = [];

  beforeAll(async () => {
    server = await listen(async (req, res) => {
      seen.push(req);
      const path = new URL(req.url ?? "/", "http://localhost").pathname;
      if (path === "/down/models") return sendJson(res, 503, { error: { message: "The engine is overloaded" } });
      if (path === "/moved/models") {
        res.writeHead(302, { location: `${server.url}/elsewhere` });
        return void res.end();
      }
      if (path === "/echo/models")
        return sendJson(res, 401, {
          error: {
            message: `Incorrect API key provided: ${req.headers.authorization?.slice(7)}; sk-wro*********6789.`,
          },
        });
      if (path === "/hang/models") return; // never answers
      sendJson(res, 404, { error: { message: "Invalid URL (GET /v1/nothing)" } });
    });
  });

  afterAll(() => server?.close());

  const check = (path: string, signal?: AbortSignal) =>
    checkConnection("openai", { apiKey: WRONG, baseURL: `${server.url}/${path}` }, signal);

  it("an error of the provider's is unreachable, a path it does not know is refused", async () => {
    expect(await check("down")).toEqual({
      ok: false,
      code: "unreachable",
      detail: expect.stringContaining("HTTP 503: The engine is overloaded"),
    });
    expect(await check("v1")).toEqual({ ok: false, code: "refused", detail: expect.stringContaining("HTTP 404") });
  });

  it("does not follow a redirect with the key", async () => {
    seen.length = 0;
    expect(await check("moved")).toMatchObject({ ok: false, code: "refused" });
    expect(seen.map((req) => req.url)).toEqual(["/moved/models"]);
  });

  it("scrubs the key, and a masked one, from what the provider says", async () => {
    const result = await check("echo");
    expect(result).toMatchObject({ ok: false, code: "unauthorized" });
    expect(result.detail).toContain("Incorrect API key provided");
    expect(result.detail).not.toContain(WRONG);
    // The port in front of the message is random and may itself end in these digits.
    const said = (result.detail ?? "").replace(/^.*? answered/, "");
    expect(said).not.toContain("6789");
  });

  it("stops when the caller aborts", async () => {
    seen.length = 0;
    const controller = new AbortController();
    const pending = check("hang", controller.signal);
    await expect.poll(() => seen.length).toBe(1);
    controller.abort(new Error("the operator left"));
    await expect(pending).rejects.toThrow("the operator left");
  });
});
