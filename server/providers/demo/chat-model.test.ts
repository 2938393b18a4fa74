import { describe, expect, it } from "vitest";
import type { LanguageModelV4CallOptions, LanguageModelV4Prompt } from "@ai-sdk/provider";
import { createPromptHelperModel, helperPrompts, imageRequestOf } from "./chat-model.ts";
import { serverT } from "#server/i18n/translations.ts";
import type { Locale } from "#common/locales.ts";

const TOOLS = [
  "generate_image",
  "generate_video",
  "animate_image",
  "remove_background",
  "upscale_image",
  "extend_image",
  "make_variations",
];

/** A conversation that made an image, then the question; what the helper answers with the chat's tools offered. */
async function answer(question: string, locale: Locale = "en", tools = TOOLS) {
  const prompt: LanguageModelV4Prompt = [
    { role: "user", content: [{ type: "text", text: "draw a red apple" }] },
    {
      role: "assistant",
      content: [
        {
          type: "text",
          text: '**Image prompt**\n\n[generate_image: started, generation 0b5c8a3e-6f1d-4c1e-9a57-2f8e4d9b1c00, prompt: "a red apple"]',
        },
      ],
    },
    { role: "user", content: [{ type: "text", text: question }] },
  ];
  const options = {
    prompt,
    tools: tools.map((name) => ({ type: "function", name, inputSchema: { type: "object" } })),
    providerOptions: { demo: { locale } },
  } as unknown as LanguageModelV4CallOptions;
  const result = await createPromptHelperModel().doGenerate(options);
  const call = result.content.find((p) => p.type === "tool-call");
  const text = result.content.find((p) => p.type === "text");
  return {
    text: text?.type === "text" ? text.text : "",
    call: call?.type === "tool-call" ? { name: call.toolName, input: JSON.parse(call.input) as unknown } : undefined,
  };
}

describe("the offline helper's requests about the conversation's last image", () => {
  it("animates the last image with a video prompt", async () => {
    const { call, text } = await answer("animate the last image");
    const prompt = helperPrompts(serverT("en", ["chat"])("chat:helper.animateSubject"), "en").video;
    expect(call).toEqual({ name: "animate_image", input: { image: "last", prompt } });
    expect(text).toContain(prompt);
  });

  it("removes its background, upscales ×4 or ×2, extends to the ratio named, and makes variations", async () => {
    expect((await answer("remove its background")).call).toEqual({
      name: "remove_background",
      input: { image: "last" },
    });
    expect((await answer("make it 4× larger")).call).toEqual({
      name: "upscale_image",
      input: { image: "last", scale: 4 },
    });
    expect((await answer("upscale it please")).call).toEqual({
      name: "upscale_image",
      input: { image: "last", scale: 2 },
    });
    expect((await answer("extend it to 16:9")).call).toEqual({
      name: "extend_image",
      input: { image: "last", ratio: "16:9" },
    });
    expect((await answer("extend the canvas to 9:16")).call).toEqual({
      name: "extend_image",
      input: { image: "last", ratio: "9:16" },
    });
    expect((await answer("variations of it")).call).toEqual({
      name: "make_variations",
      input: { generation: "last" },
    });
  });

  it("understands the same requests in other languages", async () => {
    expect((await answer("Entferne den Hintergrund", "de")).call?.name).toBe("remove_background");
    expect((await answer("Animiere das letzte Bild", "de")).call?.name).toBe("animate_image");
    expect((await answer("Vergrößere es 4-fach", "de")).call).toEqual({
      name: "upscale_image",
      input: { image: "last", scale: 4 },
    });
    expect((await answer("この画像を動かして", "ja")).call?.name).toBe("animate_image");
    expect((await answer("背景を削除して", "ja")).call?.name).toBe("remove_background");
    expect((await answer("去除背景", "zh")).call?.name).toBe("remove_background");
    expect((await answer("enlève le fond", "fr")).call?.name).toBe("remove_background");
    expect((await answer("quita el fondo", "es")).call?.name).toBe("remove_background");
    expect((await answer("удали фон", "ru")).call?.name).toBe("remove_background");
    expect((await answer("배경을 제거해 줘", "ko")).call?.name).toBe("remove_background");
    expect((await answer("remova o fundo", "pt")).call?.name).toBe("remove_background");
    expect((await answer("arka planını kaldır", "tr")).call?.name).toBe("remove_background");
  });

  it("still draws and films ideas, and calls no tool that is not offered", async () => {
    expect((await answer("draw a lighthouse")).call?.name).toBe("generate_image");
    expect((await answer("animate a fox running through the snow")).call?.name).toBe("generate_video");
    expect((await answer("remove its background", "en", ["generate_image"])).call).toBeUndefined();
    expect(imageRequestOf("a lighthouse in a storm", "en")).toBeNull();
    // A word inside a longer one is not the word.
    expect(imageRequestOf("the enlargement of a lighthouse", "en")).toBeNull();
  });
});
