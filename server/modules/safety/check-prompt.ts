import type { Db } from "#server/db/client.ts";
import { promptRefusal } from "#server/db/schema/index.ts";
import { AppError } from "#server/errors.ts";
import type { ModelRegistry } from "#server/modules/catalog/model-registry.ts";
import type { Settings } from "#server/modules/settings/schema.ts";
import type { Locale } from "#common/locales.ts";
import type { SafetyFinding, SafetyLevel } from "#common/safety.ts";
import { blockListOf } from "./block-list.ts";
import { moderate, moderationEndpoint } from "./moderate.ts";

export type RequestSource = "web" | "api" | "openai" | "chat";

/** The level a request is checked at: its API key's when an administrator set one, else its model's, else the site's. */
export function safetyLevelOf(options: {
  settings: Pick<Settings, "safety">;
  model: { safety?: SafetyLevel };
  keyLevel?: SafetyLevel | null;
}): SafetyLevel {
  return options.keyLevel ?? options.model.safety ?? options.settings.safety.level;
}

/**
 * Checks a prompt before anything is held or queued: the operator's block list at every level, then the moderation
 * endpoint (when an OpenAI connection exists and the level is not `off`). A refusal is recorded (who, through what,
 * what each check said) and thrown as `content_policy_violation`, naming the main category in the person's language;
 * at `strict`, an endpoint that does not answer refuses too (`safety_check_unavailable`), where `standard` goes on
 * and keeps that it could not check. Returns the findings, to be kept with the generation.
 */
export async function checkPrompt(
  deps: { db: Db; models: ModelRegistry; settings: Pick<Settings, "safety"> },
  options: {
    userId: string;
    source: RequestSource;
    modelId: string;
    prompt: string;
    level: SafetyLevel;
    locale?: Locale;
  },
): Promise<SafetyFinding[]> {
  const findings: SafetyFinding[] = [];
  const blocked = blockListOf(deps.settings.safety.blockList).matches(options.prompt, options.locale);
  if (blocked.length > 0) findings.push({ source: "block_list", flagged: true, categories: blocked });
  else if (options.level !== "off") {
    const endpoint = moderationEndpoint(deps.models);
    if (endpoint) findings.push(await moderate(endpoint, { text: options.prompt }, options.level));
  }
  const refused = findings.find((f) => f.flagged);
  const unchecked = options.level === "strict" && findings.some((f) => f.unavailable);
  if (refused || unchecked) {
    await deps.db.insert(promptRefusal).values({
      userId: options.userId,
      source: options.source,
      modelId: options.modelId,
      prompt: options.prompt,
      level: options.level,
      findings,
    });
    if (!refused) throw new AppError("safety_check_unavailable", "the content check did not answer");
    const category = refused.source === "block_list" ? "blocked" : (refused.categories[0] ?? "blocked");
    throw new AppError("content_policy_violation", undefined, { values: { category } });
  }
  return findings;
}
