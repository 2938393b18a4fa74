import type { ImageClassifier } from "./check-outputs.ts";

/**
 * The offline classifier as the output checks call it. None is bundled yet: the other checks (the provider's flags,
 * the moderation endpoint) run alone.
 */
export const defaultClassifier: ImageClassifier | undefined = undefined;
