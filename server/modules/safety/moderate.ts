import type { ModelRegistry } from "#server/modules/catalog/model-registry.ts";
import { moderationConnection } from "#server/providers/openai/moderation.ts";
import type { SafetyFinding, SafetyLevel } from "#common/safety.ts";

const MODERATION_MODEL = "omni-moderation-latest";
/** A prompt waits at most this long for the endpoint; past it the check counts as unavailable. */
const MODERATION_TIMEOUT_MS = 5_000;
/** At `strict`, a score at or above this refuses, where `standard` takes the endpoint's own verdict. */
export const STRICT_SCORE = 0.2;

/** The site's categories, from the endpoint's (which say more than a person needs to be told). */
export function categoryOf(category: string): string {
  const head = category.split("/")[0]!;
  if (category === "sexual/minors") return "minors";
  if (head === "self-harm") return "self_harm";
  return ["sexual", "violence", "hate", "harassment", "illicit"].includes(head) ? head : "illicit";
}

/** Where the moderation endpoint is: the first OpenAI connection that can serve, with its key. */
export function moderationEndpoint(models: ModelRegistry): { url: string; apiKey: string } | null {
  return moderationConnection(models.connections());
}

interface ModerationResult {
  flagged: boolean;
  categories: Record<string, boolean>;
  category_scores: Record<string, number>;
}

/** A text (and images, as data URLs or https URLs) scored; the finding says `unavailable` when no answer came. */
export async function moderate(
  endpoint: { url: string; apiKey: string },
  input: { text?: string; images?: string[] },
  level: Exclude<SafetyLevel, "off">,
): Promise<SafetyFinding> {
  const parts = [
    ...(input.text ? [{ type: "text", text: input.text }] : []),
    ...(input.images ?? []).map((url) => ({ type: "image_url", image_url: { url } })),
  ];
  let result: ModerationResult | undefined;
  try {
    const response = await fetch(endpoint.url, {
      method: "POST",
      headers: { authorization: `Bearer ${endpoint.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ model: MODERATION_MODEL, input: parts }),
      // A base URL must not forward the key elsewhere.
      redirect: "manual",
      signal: AbortSignal.timeout(MODERATION_TIMEOUT_MS),
    });
    if (response.ok) result = ((await response.json()) as { results?: ModerationResult[] }).results?.[0];
    else await response.body?.cancel().catch(() => undefined);
  } catch {
    result = undefined;
  }
  if (!result || typeof result.category_scores !== "object")
    return { source: "moderation", flagged: false, categories: [], unavailable: true };
  const scores = result.category_scores;
  const hit = Object.keys(scores).filter((c) =>
    level === "strict"
      ? result.categories[c] === true || (scores[c] ?? 0) >= STRICT_SCORE
      : result.categories[c] === true,
  );
  const categories = [...new Set(hit.sort((a, b) => (scores[b] ?? 0) - (scores[a] ?? 0)).map(categoryOf))];
  return {
    source: "moderation",
    flagged: level === "strict" ? categories.length > 0 : result.flagged === true && categories.length > 0,
    categories,
    scores: Object.fromEntries(Object.entries(scores).map(([c, s]) => [c, Math.round(s * 10_000) / 10_000])),
  };
}
