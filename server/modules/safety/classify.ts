import type { SafetyFinding } from "#common/safety.ts";
import type { ImageClassifier } from "./check-outputs.ts";

/**
 * The offline classifier as the output checks call it: the picture's five scores (rounded) and the verdict at the
 * level. The classifier (its worker thread and model) is imported with the first picture, in the process running jobs.
 */
export const defaultClassifier: ImageClassifier = async (bytes, level): Promise<SafetyFinding> => {
  const { classifyImage, classificationVerdict } = await import("#server/media/classify-image.ts");
  const { scores } = await classifyImage(bytes);
  const verdict = classificationVerdict(scores, level);
  return {
    source: "classifier",
    flagged: verdict.flagged,
    categories: verdict.categories,
    scores: Object.fromEntries(Object.entries(scores).map(([c, s]) => [c, Math.round(s * 10_000) / 10_000])),
  };
};
