/** Where the visible label sits on an image. */
export const LABEL_POSITIONS = ["top-left", "top-right", "bottom-left", "bottom-right"] as const;
export type LabelPosition = (typeof LABEL_POSITIONS)[number];

/** Which images carry it: every output image, or those of models whose definition asks for it (`label: true`). */
export const LABEL_SCOPES = ["everyone", "models"] as const;
