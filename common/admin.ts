/** The orders the console's user list can be sorted in. */
export const USER_SORTS = ["newest", "oldest", "email", "balance"] as const;

/** The areas an audited action belongs to: the part of its name before the dot. */
export const ACTION_AREAS = [
  "role",
  "user",
  "credits",
  "codes",
  "orders",
  "generations",
  "models",
  "settings",
] as const;
