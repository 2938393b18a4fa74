import { randomBytes } from "node:crypto";

/** The categories of OpenAI's `omni-moderation-latest`, and the input types each is scored on. */
const CATEGORIES: Record<string, ("text" | "image")[]> = {
  harassment: ["text"],
  "harassment/threatening": ["text"],
  hate: ["text"],
  "hate/threatening": ["text"],
  illicit: ["text"],
  "illicit/violent": ["text"],
  "self-harm": ["text", "image"],
  "self-harm/intent": ["text", "image"],
  "self-harm/instructions": ["text", "image"],
  sexual: ["text", "image"],
  "sexual/minors": ["text"],
  violence: ["text", "image"],
  "violence/graphic": ["text", "image"],
};

export interface ModerationRules {
  /** A text containing the key (case-insensitive) scores its category at the value. */
  terms: Record<string, { category: string; score: number }>;
  /** Every image input scores these. */
  imageScores: Record<string, number>;
  /** Scores at or above this are flagged, as the endpoint's own verdict. */
  threshold: number;
}

export const defaultModerationRules = (): ModerationRules => ({
  terms: {
    "moderation-sexual": { category: "sexual", score: 0.93 },
    "moderation-violence": { category: "violence/graphic", score: 0.88 },
    "moderation-borderline": { category: "violence", score: 0.3 },
  },
  imageScores: {},
  threshold: 0.5,
});

/**
 * Answers `POST /v1/moderations` as OpenAI's moderation endpoint does: `input` is a string, an array of strings, or
 * an array of `{type: "text", text}` and `{type: "image_url", image_url: {url}}` parts (the omni models only); one
 * result per string, or one for the whole multi-modal array, each with `flagged`, `categories`, `category_scores`
 * and `category_applied_input_types`. Returns a 400 body for an input it cannot read.
 */
export function moderationAnswer(
  fields: Record<string, unknown>,
  rules: ModerationRules,
): { status: number; body: unknown } {
  const model = typeof fields.model === "string" ? fields.model : "omni-moderation-latest";
  const input = fields.input;
  const invalid = (message: string) => ({
    status: 400,
    body: { error: { message, type: "invalid_request_error", param: "input", code: null } },
  });
  const score = (texts: string[], images: number) => {
    const scores = Object.fromEntries(Object.keys(CATEGORIES).map((c) => [c, 0.0001]));
    const applied = Object.fromEntries(Object.keys(CATEGORIES).map((c) => [c, [] as string[]]));
    for (const text of texts) {
      for (const [term, hit] of Object.entries(rules.terms))
        if (text.toLowerCase().includes(term.toLowerCase()))
          scores[hit.category] = Math.max(scores[hit.category]!, hit.score);
      for (const c of Object.keys(CATEGORIES)) if (CATEGORIES[c]!.includes("text")) applied[c]!.push("text");
    }
    if (images > 0)
      for (const [c, s] of Object.entries(rules.imageScores)) {
        scores[c] = Math.max(scores[c]!, s);
        if (CATEGORIES[c]?.includes("image")) applied[c]!.push("image");
      }
    const categories = Object.fromEntries(Object.entries(scores).map(([c, s]) => [c, s >= rules.threshold]));
    return {
      flagged: Object.values(categories).some(Boolean),
      categories,
      category_scores: scores,
      category_applied_input_types: Object.fromEntries(Object.entries(applied).map(([c, t]) => [c, [...new Set(t)]])),
    };
  };
  let results;
  if (typeof input === "string") results = [score([input], 0)];
  else if (Array.isArray(input) && input.every((i) => typeof i === "string"))
    results = (input as string[]).map((i) => score([i], 0));
  else if (Array.isArray(input) && input.length > 0) {
    if (!model.startsWith("omni-moderation"))
      return invalid("Image inputs are only supported by omni moderation models.");
    const texts: string[] = [];
    let images = 0;
    for (const part of input as { type?: string; text?: unknown; image_url?: { url?: unknown } }[]) {
      if (part.type === "text" && typeof part.text === "string") texts.push(part.text);
      else if (part.type === "image_url" && typeof part.image_url?.url === "string") images++;
      else return invalid("Invalid input part.");
    }
    results = [score(texts, images)];
  } else return invalid("'input' is a required property.");
  return {
    status: 200,
    body: {
      id: `modr-${randomBytes(12).toString("hex")}`,
      model,
      results,
    },
  };
}
