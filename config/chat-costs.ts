/** What an answer of the chat costs and may hold: shared by the server and the chat page. */

/**
 * What a chat model charges, in credits per million tokens (whole numbers, so that every charge is exact): an
 * answer costs its input and output tokens at these prices, rounded up to a whole credit.
 */
export interface ChatPrice {
  inputPerMillion: number;
  outputPerMillion: number;
}

/** What chatHold and answerPlan read of a chat model. */
type PricedModel = { price: ChatPrice; maxOutputTokens: number };

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
  model: PricedModel,
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
  model: PricedModel,
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
