import { LOCALES } from "#common/locales.ts";

/**
 * What the site checks before anyone else sees a generation, as both sides name it. A level is chosen per model and,
 * for the public APIs, per key (the key's wins when set):
 * - `strict`: the block list; the moderation endpoint refuses at lower scores than its own verdict; outputs are
 *   flagged at lower classifier scores, suggestive ones included;
 * - `standard`: the block list; the moderation endpoint's own verdict; outputs flagged when explicit;
 * - `off`: the block list only (the operator's own rule); nothing automatic, for installations whose users are
 *   their own staff.
 */
export const SAFETY_LEVELS = ["strict", "standard", "off"] as const;
export type SafetyLevel = (typeof SAFETY_LEVELS)[number];

/** A block list for every language (`all`) and one per language, each applied to every prompt. */
export const BLOCK_LIST_SCOPES = ["all", ...LOCALES] as const;
export type BlockListScope = (typeof BLOCK_LIST_SCOPES)[number];
export const BLOCK_LIST_MAX_CHARS = 20_000;

/** Why a visitor reports a public result. */
export const REPORT_REASONS = [
  "sexual",
  "minors",
  "violence",
  "hate",
  "harassment",
  "illegal",
  "rights",
  "spam",
  "other",
] as const;
export type ReportReason = (typeof REPORT_REASONS)[number];

export const REPORT_NOTE_MAX = 1000;

/** Where a generation stands with review: flagged by a check (kept private), or cleared by an administrator. */
export const REVIEW_STATES = ["flagged", "cleared"] as const;
export type ReviewState = (typeof REVIEW_STATES)[number];

/** One check's finding, as it is kept with the request and shown in the review queue. */
export interface SafetyFinding {
  /** What checked: the operator's block list, the moderation endpoint, the provider's own flag, the classifier. */
  source: "block_list" | "moderation" | "provider" | "classifier";
  flagged: boolean;
  /** The categories it named (the moderation endpoint's, the classifier's, or the block list's matched entries). */
  categories: string[];
  /** The scores it gave, per category, when it gives any. */
  scores?: Record<string, number>;
  /** The check could not run (an unreachable endpoint): said, not taken as a pass silently. */
  unavailable?: boolean;
}

/** What the checks found for one generation, kept on it. */
export interface SafetyRecord {
  level: SafetyLevel;
  prompt: SafetyFinding[];
  output?: SafetyFinding[];
  /** The owner asked for it public: published once an administrator clears it. */
  wantedPublic?: boolean;
}
