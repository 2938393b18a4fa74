import sharp from "sharp";
import type { ModelRegistry } from "#server/modules/catalog/model-registry.ts";
import type { Output } from "#server/providers/generate.ts";
import type { SafetyFinding, SafetyLevel } from "#common/safety.ts";
import { moderate, moderationEndpoint } from "./moderate.ts";

/** An offline classifier's finding for one picture, at a level. */
export type ImageClassifier = (bytes: Uint8Array, level: Exclude<SafetyLevel, "off">) => Promise<SafetyFinding>;

/** The side of the copy the moderation endpoint is sent: enough to judge, small enough to send quickly. */
const MODERATION_SIDE = 512;

/** One finding of many (one per output): flagged if any was, the categories of all, each score at its highest. */
function merged(source: SafetyFinding["source"], findings: SafetyFinding[]): SafetyFinding | null {
  if (findings.length === 0) return null;
  const scores: Record<string, number> = {};
  for (const f of findings)
    for (const [c, s] of Object.entries(f.scores ?? {})) scores[c] = Math.max(scores[c] ?? 0, s);
  return {
    source,
    flagged: findings.some((f) => f.flagged),
    categories: [...new Set(findings.flatMap((f) => f.categories))],
    ...(Object.keys(scores).length > 0 ? { scores } : {}),
    ...(findings.some((f) => f.unavailable) ? { unavailable: true } : {}),
  };
}

/**
 * Checks a job's outputs before anyone but their owner can see them: the provider's own flags, the offline
 * classifier, and the moderation endpoint's image categories when an OpenAI connection exists (videos by their
 * poster frame). Nothing runs at `off`. A check that fails to run is kept as unavailable and never fails the job.
 */
export async function checkOutputs(
  deps: { models: ModelRegistry; classify?: ImageClassifier },
  options: { level: SafetyLevel; outputs: Output[] },
): Promise<SafetyFinding[]> {
  if (options.level === "off") return [];
  const level = options.level;
  const findings: SafetyFinding[] = [];
  if (options.outputs.some((o) => o.flagged))
    findings.push({ source: "provider", flagged: true, categories: ["sexual"] });
  const pictures = options.outputs
    .map((o) => (o.mediaType.startsWith("image/") ? o.bytes : o.poster))
    .filter((b): b is Uint8Array => b !== undefined);
  if (deps.classify && pictures.length > 0) {
    const classified: SafetyFinding[] = [];
    for (const picture of pictures) {
      try {
        classified.push(await deps.classify(picture, level));
      } catch {
        classified.push({ source: "classifier", flagged: false, categories: [], unavailable: true });
      }
    }
    const finding = merged("classifier", classified);
    if (finding) findings.push(finding);
  }
  const endpoint = moderationEndpoint(deps.models);
  if (endpoint && pictures.length > 0) {
    const urls: string[] = [];
    for (const picture of pictures) {
      try {
        const small = await sharp(picture)
          .resize({ width: MODERATION_SIDE, height: MODERATION_SIDE, fit: "inside", withoutEnlargement: true })
          .jpeg({ quality: 80 })
          .toBuffer();
        urls.push(`data:image/jpeg;base64,${small.toString("base64")}`);
      } catch {
        // A picture the classifier could not read either: the provider's flag and the other checks still apply.
      }
    }
    if (urls.length > 0) findings.push(await moderate(endpoint, { images: urls }, level));
  }
  return findings;
}

/** Whether the findings keep the outputs from the public until an administrator looks: a flag, or at `strict` a check that could not run. */
export function needsReview(level: SafetyLevel, findings: SafetyFinding[]): boolean {
  return findings.some((f) => f.flagged) || (level === "strict" && findings.some((f) => f.unavailable));
}
