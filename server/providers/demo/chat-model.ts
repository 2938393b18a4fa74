import { randomUUID } from "node:crypto";
import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Prompt,
  LanguageModelV4StreamPart,
} from "@ai-sdk/provider";
import { serverT } from "#server/i18n/translations.ts";
import { isLocale, type Locale } from "#common/locales.ts";
import { hashString } from "#server/providers/demo/prompt.ts";
import { estimateTokens } from "#config/chat-costs.ts";
import { IMAGE_ASPECT_RATIOS, type ImageAspectRatio } from "#common/generation.ts";

/** How fast the offline helper writes: a few words every 30 ms, about what a hosted model streams. */
const CHUNK_WORDS = 3;
const CHUNK_DELAY_MS = 30;

/** The words of a text as the helper streams them, each with its following space. */
const chunksOf = (text: string) => {
  const words = text.match(/\S+\s*/g) ?? [];
  const chunks: string[] = [];
  for (let i = 0; i < words.length; i += CHUNK_WORDS) chunks.push(words.slice(i, i + CHUNK_WORDS).join(""));
  return chunks;
};

const textOf = (message: LanguageModelV4Prompt[number]) =>
  message.role === "system"
    ? message.content
    : message.content
        .flatMap((part) => (part.type === "text" ? [part.text] : []))
        .join(" ")
        .trim();

/**
 * The idea asked about, and what was already written of the answer when it is continued (the prompt then ends with
 * the cut answer and the instruction to continue it).
 */
function lastQuestion(prompt: LanguageModelV4Prompt, continuing: boolean): { idea: string; written: string } {
  const end = continuing ? prompt.findLastIndex((m) => m.role === "assistant") : prompt.length;
  const written = continuing && end >= 0 ? textOf(prompt[end]!) : "";
  for (let i = end - 1; i >= 0; i--) if (prompt[i]!.role === "user") return { idea: textOf(prompt[i]!), written };
  return { idea: "", written };
}

/** How a question names an image it shows, for a model that does not see it (see modelMessages in answer.ts). */
const ATTACHED = /\[Attached image: ([0-9a-f-]{36})\]/;

/** The idea cleaned of its end punctuation and extra spaces. */
const cleanIdea = (idea: string) => idea.replace(/\s+/g, " ").replace(/[\s.!?。！？]+$/u, "");

/**
 * The image prompt and the video prompt for an idea, in the asker's language: each the idea followed by phrases
 * picked by the idea's own hash (the same idea always gets the same prompts; another wording, other ones).
 */
export function helperPrompts(idea: string, locale: Locale): { image: string; video: string } {
  const t = serverT(locale, ["chat"]);
  const list = (key: string) => t(`chat:helper.${key}`, { returnObjects: true }) as unknown as string[];
  const cleaned = cleanIdea(idea);
  const seed = hashString(cleaned.toLowerCase());
  const pick = (key: string, salt: number) => {
    const options = list(key);
    return options[(seed + salt * 7) % options.length]!;
  };
  // Chinese and Japanese write their own commas and full stop.
  const [comma, stop] = locale === "zh" ? ["，", "。"] : locale === "ja" ? ["、", "。"] : [", ", "."];
  return {
    image: [cleaned, pick("light", 1), pick("lens", 2), pick("detail", 3)].join(comma) + stop,
    video: [cleaned, pick("camera", 4), pick("motion", 5), pick("light", 6), pick("mood", 7)].join(comma) + stop,
  };
}

/** The answer to an idea, in the asker's language: an image prompt and a video prompt (see helperPrompts). */
export function promptHelperAnswer(idea: string, locale: Locale): string {
  const t = serverT(locale, ["chat"]);
  if (!cleanIdea(idea)) return t("chat:helper.empty");
  const { image, video } = helperPrompts(idea, locale);
  return [
    t("chat:helper.intro"),
    `**${t("chat:helper.imageHeading")}**\n\n${image}`,
    `**${t("chat:helper.videoHeading")}**\n\n${video}`,
    t("chat:helper.tip"),
  ].join("\n\n");
}

/** Where a word of a list stands in a text, as a word of its own (in the scripts that put spaces between words). */
function findWord(text: string, words: readonly string[], locale: Locale): { at: number; word: string } | null {
  const lower = text.toLocaleLowerCase(locale);
  const spaced = /[\p{Script=Latin}\p{Script=Cyrillic}]/u;
  for (const word of words) {
    const w = word.toLocaleLowerCase(locale);
    for (let at = lower.indexOf(w); at >= 0; at = lower.indexOf(w, at + 1))
      if (!spaced.test(lower[at - 1] ?? "") && !spaced.test(lower[at + w.length] ?? "")) return { at, word };
  }
  return null;
}

/** What the helper may do to an image of the conversation, and the tool that does it. */
export const IMAGE_INTENTS = {
  animate: "animate_image",
  background: "remove_background",
  // Before upscaling: "enlarge the canvas" extends it.
  extend: "extend_image",
  upscale: "upscale_image",
  variations: "make_variations",
} as const;
export type ImageIntent = keyof typeof IMAGE_INTENTS;

/**
 * What a question asks the helper to do to the conversation's last image, in the words of its language ("animate
 * the last image", "remove its background", "make it 4× larger", "extend it to 16:9", "variations of it"), with
 * what it names: the factor (4 when it says 4, else 2) and the ratio (16:9 unless it names another of Atelier's).
 */
export function imageRequestOf(
  idea: string,
  locale: Locale,
): { intent: ImageIntent; scale: 2 | 4; ratio: ImageAspectRatio } | null {
  const t = serverT(locale, ["chat"]);
  for (const intent of Object.keys(IMAGE_INTENTS) as ImageIntent[]) {
    const words = t(`chat:helper.${intent}Words`, { returnObjects: true }) as unknown as string[];
    if (!findWord(idea, words, locale)) continue;
    const named = /(\d{1,2})\s*[:：]\s*(\d{1,2})/.exec(idea);
    const ratio = named ? `${named[1]}:${named[2]}` : "";
    return {
      intent,
      scale: /(?<![\d.,])4(?![\d.,:])/.test(idea) ? 4 : 2,
      ratio: (IMAGE_ASPECT_RATIOS as readonly string[]).includes(ratio) ? (ratio as ImageAspectRatio) : "16:9",
    };
  }
  return null;
}

/**
 * What an idea asks the helper to make, when it asks in the words of its language ("draw …", "make a video of …"):
 * the tool and the subject (the idea without those words); null for an idea to turn into prompts.
 */
export function makeRequestOf(idea: string, locale: Locale): { tool: "image" | "video"; subject: string } | null {
  const t = serverT(locale, ["chat"]);
  const lower = idea.toLocaleLowerCase(locale);
  for (const tool of ["video", "image"] as const) {
    const words = t(`chat:helper.${tool}Words`, { returnObjects: true }) as unknown as string[];
    for (const word of words) {
      const at = lower.indexOf(word.toLocaleLowerCase(locale));
      // A word of the list, not a piece of a longer one (in the scripts that put spaces between words).
      const spaced = /[\p{Script=Latin}\p{Script=Cyrillic}]/u;
      if (at < 0 || spaced.test(lower[at - 1] ?? "") || spaced.test(lower[at + word.length] ?? "")) continue;
      const subject = cleanIdea((idea.slice(0, at) + " " + idea.slice(at + word.length)).trim())
        .replace(/^[\s,:;—-]+/u, "")
        .trim();
      if (subject) return { tool, subject };
    }
  }
  return null;
}

/**
 * Atelier's offline prompt helper as an AI SDK language model: it streams like a hosted model (text deltas, then
 * the usage it counted) and honours the output limit and the abort signal, so the chat runs, charges and stops the
 * same way with it. It writes in the language passed as `providerOptions.demo.locale`, and continues a cut answer
 * from where it stopped when `providerOptions.demo.continuing` is set. Asked to draw or film something ("draw a
 * lighthouse", in the asker's language) with the studio's tools offered, it writes the prompt and calls the tool,
 * then says what came of the call.
 */
export function createPromptHelperModel(): LanguageModelV4 {
  const answer = (options: LanguageModelV4CallOptions) => {
    const asked = options.providerOptions?.demo?.locale;
    const locale: Locale = isLocale(asked) ? asked : "en";
    const t = serverT(locale, ["chat"]);
    const continuing = options.providerOptions?.demo?.continuing === true;
    const offered = (name: string) => options.tools?.some((tool) => tool.type === "function" && tool.name === name);
    // Cut to the output limit; the helper counts tokens as the estimate before a call does.
    const limit = options.maxOutputTokens;
    const cut = (full: string) =>
      limit !== undefined && estimateTokens(full) > limit ? full.slice(0, limit * 4) : full;
    const reply = (full: string, toolCall?: { toolName: string; input: string }) => {
      const text = cut(full);
      return {
        text,
        truncated: text !== full,
        toolCall: text === full ? toolCall : undefined,
        usage: { input: estimateTokens(options.prompt.map(textOf).join("\n")), output: estimateTokens(text) },
      };
    };

    // A tool it called has run: it says what came of it.
    const last = options.prompt.at(-1);
    if (last?.role === "tool") {
      const result = last.content.find((p) => p.type === "tool-result");
      const value = (result?.output.type === "json" ? result.output.value : {}) as {
        status?: string;
        message?: string;
      };
      const drew = result?.toolName === "generate_image" || result?.toolName === "generate_video";
      if (value.status === "started") return reply(t(drew ? "chat:helper.started" : "chat:helper.startedEdit"));
      if (value.status === "awaiting_confirmation") return reply(t("chat:helper.confirm"));
      return reply(t("chat:helper.notStarted", { reason: value.message ?? "" }));
    }

    const question = lastQuestion(options.prompt, continuing);
    // The images the question shows are named in its text (it does not see them): the first one is the one to change.
    const attached = ATTACHED.exec(question.idea)?.[1];
    const idea = question.idea.replace(new RegExp(ATTACHED.source, "g"), "").trim();
    const { written } = question;
    // Asked to change the conversation's last image (one shown or made earlier), with the tool for it at hand: the
    // server finds the image (or says there is none).
    const change = continuing ? null : imageRequestOf(idea, locale);
    const changeTool = change ? IMAGE_INTENTS[change.intent] : undefined;
    if (change && offered(changeTool!)) {
      if (change.intent === "animate") {
        const prompt = helperPrompts(t("chat:helper.animateSubject"), locale).video;
        return reply(`**${t("chat:helper.videoHeading")}**\n\n${prompt}`, {
          toolName: changeTool!,
          input: JSON.stringify({ image: "last", prompt }),
        });
      }
      const input =
        change.intent === "variations"
          ? { generation: "last" }
          : change.intent === "upscale"
            ? { image: "last", scale: change.scale }
            : change.intent === "extend"
              ? { image: "last", ratio: change.ratio }
              : { image: "last" };
      return reply(t(`chat:helper.changing.${change.intent}`, { scale: change.scale, ratio: change.ratio }), {
        toolName: changeTool!,
        input: JSON.stringify(input),
      });
    }
    // Asked to draw or film something, with the studio's tools at hand: the prompt, then the call that makes it.
    const make = continuing ? null : makeRequestOf(idea, locale);
    const toolName = make?.tool === "video" ? "generate_video" : "generate_image";
    if (make && offered(toolName)) {
      const prompts = helperPrompts(make.subject, locale);
      const prompt = make.tool === "video" ? prompts.video : prompts.image;
      const heading = t(make.tool === "video" ? "chat:helper.videoHeading" : "chat:helper.imageHeading");
      const input = make.tool === "image" && attached ? { prompt, sourceImageId: attached } : { prompt };
      return reply(`**${heading}**\n\n${prompt}`, { toolName, input: JSON.stringify(input) });
    }
    const whole = promptHelperAnswer(idea, locale);
    // A continuation writes what the cut answer had not written yet.
    return reply(written && whole.startsWith(written) ? whole.slice(written.length) : whole);
  };
  const usageOf = (input: number, output: number) => ({
    inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: output, text: output, reasoning: 0 },
  });
  return {
    specificationVersion: "v4",
    provider: "demo",
    modelId: "prompt-helper",
    supportedUrls: {},
    async doGenerate(options) {
      const { text, truncated, usage, toolCall } = answer(options);
      return {
        content: [
          { type: "text", text },
          ...(toolCall ? [{ type: "tool-call" as const, toolCallId: randomUUID(), ...toolCall }] : []),
        ],
        finishReason: { unified: toolCall ? "tool-calls" : truncated ? "length" : "stop", raw: undefined },
        usage: usageOf(usage.input, usage.output),
        warnings: [],
      };
    },
    async doStream(options) {
      const { text, truncated, usage, toolCall } = answer(options);
      const signal = options.abortSignal;
      const chunks = chunksOf(text);
      let i = 0;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const stream = new ReadableStream<LanguageModelV4StreamPart>({
        start(controller) {
          controller.enqueue({ type: "stream-start", warnings: [] });
          controller.enqueue({ type: "text-start", id: "0" });
          const abort = () => {
            clearTimeout(timer);
            controller.error(signal?.reason ?? new DOMException("The operation was aborted.", "AbortError"));
          };
          if (signal?.aborted) return abort();
          signal?.addEventListener("abort", abort, { once: true });
          const next = () => {
            if (i < chunks.length) {
              controller.enqueue({ type: "text-delta", id: "0", delta: chunks[i++]! });
              timer = setTimeout(next, CHUNK_DELAY_MS);
              return;
            }
            signal?.removeEventListener("abort", abort);
            controller.enqueue({ type: "text-end", id: "0" });
            if (toolCall) controller.enqueue({ type: "tool-call", toolCallId: randomUUID(), ...toolCall });
            controller.enqueue({
              type: "finish",
              usage: usageOf(usage.input, usage.output),
              finishReason: { unified: toolCall ? "tool-calls" : truncated ? "length" : "stop", raw: undefined },
            });
            controller.close();
          };
          timer = setTimeout(next, CHUNK_DELAY_MS);
        },
        cancel() {
          clearTimeout(timer);
        },
      });
      return { stream };
    },
  };
}
