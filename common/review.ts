/** What an administrator decides about a generation in the review queue. */
export const REVIEW_DECISIONS = ["clear", "hide", "delete", "ban"] as const;
export type ReviewDecision = (typeof REVIEW_DECISIONS)[number];
