import { z } from "zod";
import { REPORT_NOTE_MAX, REPORT_REASONS } from "#common/safety.ts";
import { REVIEW_DECISIONS, type ReviewDecision } from "#common/review.ts";

/** A visitor's report of a public result, as the share page's form sends it. */
export const reportSchema = z.object({
  reason: z.enum(REPORT_REASONS),
  note: z
    .string()
    .trim()
    .max(REPORT_NOTE_MAX)
    .optional()
    .transform((v) => v || undefined),
});
export type ReportInput = z.infer<typeof reportSchema>;

export { REVIEW_DECISIONS, type ReviewDecision };

export const reviewDecisionSchema = z.object({
  decision: z.enum(REVIEW_DECISIONS),
  reason: z.string().trim().min(1).max(500),
});
