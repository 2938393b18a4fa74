import type { Env } from "#server/env.ts";

export type ChatProvider = "demo" | "openai" | "openai-compatible" | "anthropic" | "google";

/** One way to run a chat model: a provider and its id for the model. Tried in order; a provider failure fails over. */
export interface ChatBinding {
  provider: ChatProvider;
  model: string;
}

/**
 * What a chat model charges, in credits per million tokens (whole numbers, so that every charge is exact): an
 * answer costs its input and output tokens at these prices, rounded up to a whole credit.
 */
export interface ChatPrice {
  inputPerMillion: number;
  outputPerMillion: number;
}

export interface ChatModel {
  id: string;
  /** A product name, shown as is in every language. */
  name: string;
  bindings: ChatBinding[];
  price: ChatPrice;
  /** The most tokens the model reads (the conversation sent is cut to fit) and writes in one answer. */
  contextTokens: number;
  maxOutputTokens: number;
  /** Reads images attached to a question. */
  vision: boolean;
  /** Calls tools: the chat offers it the studio's (an image, a video). */
  tools: boolean;
  /** Runs on this machine with no key and no network. */
  offline?: boolean;
}

/** The chat catalog; a model is offered only when at least one of its providers is configured. */
export const chatCatalog: ChatModel[] = [
  {
    id: "prompt-helper",
    name: "Atelier Prompt Helper",
    bindings: [{ provider: "demo", model: "prompt-helper" }],
    price: { inputPerMillion: 1_000, outputPerMillion: 4_000 },
    contextTokens: 8_000,
    maxOutputTokens: 1_000,
    vision: false,
    tools: true,
    offline: true,
  },
  {
    id: "gpt-4o-mini",
    name: "GPT-4o mini",
    bindings: [{ provider: "openai", model: "gpt-4o-mini" }],
    price: { inputPerMillion: 50, outputPerMillion: 200 },
    contextTokens: 128_000,
    maxOutputTokens: 4_096,
    vision: true,
    tools: true,
  },
  {
    id: "gpt-4.1",
    name: "GPT-4.1",
    bindings: [{ provider: "openai", model: "gpt-4.1" }],
    price: { inputPerMillion: 600, outputPerMillion: 2_400 },
    contextTokens: 128_000,
    maxOutputTokens: 8_192,
    vision: true,
    tools: true,
  },
  {
    id: "claude-sonnet-4",
    name: "Claude Sonnet 4",
    bindings: [{ provider: "anthropic", model: "claude-sonnet-4-20250514" }],
    price: { inputPerMillion: 900, outputPerMillion: 4_500 },
    contextTokens: 200_000,
    maxOutputTokens: 8_192,
    vision: true,
    tools: true,
  },
  {
    id: "gemini-2.5-flash",
    name: "Gemini 2.5 Flash",
    bindings: [{ provider: "google", model: "gemini-2.5-flash" }],
    price: { inputPerMillion: 100, outputPerMillion: 800 },
    contextTokens: 1_000_000,
    maxOutputTokens: 8_192,
    vision: true,
    tools: true,
  },
];

export function chatProviderConfigured(provider: ChatProvider, env: Env): boolean {
  switch (provider) {
    case "demo":
      return env.DEMO_MODELS;
    case "openai":
      return Boolean(env.OPENAI_API_KEY);
    case "openai-compatible":
      return Boolean(env.OPENAI_COMPATIBLE_BASE_URL) && env.OPENAI_COMPATIBLE_CHAT_MODELS.length > 0;
    case "anthropic":
      return Boolean(env.ANTHROPIC_API_KEY);
    case "google":
      return Boolean(env.GOOGLE_GENERATIVE_AI_API_KEY);
  }
}

/** Chat models of an OpenAI-compatible server (Ollama, vLLM, LM Studio, OpenRouter), one catalog entry each. */
function compatibleChatModels(env: Env): ChatModel[] {
  return env.OPENAI_COMPATIBLE_CHAT_MODELS.map((model) => ({
    id: `compat-${model.replace(/[^\w.-]+/g, "-").toLowerCase()}`,
    name: model,
    bindings: [{ provider: "openai-compatible" as const, model }],
    price: { inputPerMillion: 100, outputPerMillion: 400 },
    contextTokens: 32_000,
    maxOutputTokens: 4_096,
    vision: false,
    // Not every model such a server runs calls tools; none is offered them.
    tools: false,
  }));
}

/** Every chat model this deployment knows. */
export function knownChatModels(env: Env): ChatModel[] {
  return [...chatCatalog, ...compatibleChatModels(env)];
}

/** The chat models offered: those with a configured provider (only those bindings kept), minus the disabled ones. */
export function offeredChatModels(env: Env): ChatModel[] {
  const disabled = new Set(env.DISABLED_MODELS);
  return knownChatModels(env)
    .filter((m) => !disabled.has(m.id))
    .map((m) => ({ ...m, bindings: m.bindings.filter((b) => chatProviderConfigured(b.provider, env)) }))
    .filter((m) => m.bindings.length > 0);
}

/**
 * The credits `input` and `output` tokens cost at `price`: the exact sum in millionths of a credit, rounded up to a
 * whole credit. Nothing used costs nothing.
 */
export function chatCost(price: ChatPrice, input: number, output: number): number {
  const millionths = input * price.inputPerMillion + output * price.outputPerMillion;
  return Math.ceil(millionths / 1_000_000);
}

/** Tokens in a text, estimated before the provider counts them (about four characters each, rounded up). */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Tokens each message adds beyond its text (roles and separators), in the estimate before a call. */
const TOKENS_PER_MESSAGE = 4;
/** The most images one question shows. */
export const MAX_ATTACHMENTS = 4;
/** Tokens an image counts as in the estimate (what the hosted models charge for a picture of about 1 megapixel). */
export const TOKENS_PER_IMAGE = 1_000;

/**
 * The input tokens of a call, estimated before it: the system prompt and the messages, with what each adds, and
 * the images the model reads.
 */
export function estimateInput(system: string | undefined, texts: string[], images = 0): number {
  return (
    estimateTokens([system ?? "", ...texts].join("\n")) +
    TOKENS_PER_MESSAGE * (texts.length + 1) +
    TOKENS_PER_IMAGE * images
  );
}

/** The fewest output tokens an answer is started with: below it, the balance is too low to answer. */
export const MIN_OUTPUT_TOKENS = 16;

/**
 * What to hold for an answer: its input at the model's price and as many output tokens as the model may write, or
 * fewer when the available credits pay for fewer (the answer then stops there, to be continued after a top-up).
 * Null when not even MIN_OUTPUT_TOKENS can be paid for.
 */
export function chatHold(
  model: Pick<ChatModel, "price" | "maxOutputTokens">,
  inputTokens: number,
  available: number,
): { credits: number; maxOutputTokens: number; limitedByCredits: boolean } | null {
  const full = chatCost(model.price, inputTokens, model.maxOutputTokens);
  if (full <= available) return { credits: full, maxOutputTokens: model.maxOutputTokens, limitedByCredits: false };
  const left = available * 1_000_000 - inputTokens * model.price.inputPerMillion;
  const affordable =
    model.price.outputPerMillion === 0 ? model.maxOutputTokens : Math.floor(left / model.price.outputPerMillion);
  if (affordable < MIN_OUTPUT_TOKENS) return null;
  const maxOutputTokens = Math.min(affordable, model.maxOutputTokens);
  return { credits: chatCost(model.price, inputTokens, maxOutputTokens), maxOutputTokens, limitedByCredits: true };
}

/**
 * Tokens the studio's tools add to each call that offers them, in the estimate: their schemas and, after a call,
 * its result (the answer is never charged above its hold, so an estimate a little short costs the site a fraction
 * of a credit at most, where one too long would refuse answers a small balance could pay for).
 */
export const TOOLS_TOKENS = 150;

/**
 * What to hold for an answer, and the output limit of each of its model calls. A model offered the studio's tools
 * may take two calls (the one that calls a tool, then its words on what the tool did), each reading the whole
 * conversation again: the hold covers both calls' input, and the output the balance pays for is shared between
 * them, so what an answer can cost never exceeds what was held.
 */
export function answerPlan(
  model: Pick<ChatModel, "price" | "maxOutputTokens">,
  inputTokens: number,
  available: number,
  withTools: boolean,
): (NonNullable<ReturnType<typeof chatHold>> & { stepOutputTokens: number }) | null {
  if (!withTools) {
    const plan = chatHold(model, inputTokens, available);
    return plan && { ...plan, stepOutputTokens: plan.maxOutputTokens };
  }
  const plan = chatHold(model, 2 * inputTokens + 2 * TOOLS_TOKENS, available);
  if (!plan || plan.maxOutputTokens < 2 * MIN_OUTPUT_TOKENS) return null;
  return { ...plan, stepOutputTokens: Math.floor(plan.maxOutputTokens / 2) };
}
