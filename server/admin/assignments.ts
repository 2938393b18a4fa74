/** `key=value` arguments of the commands that change a record by its fields (`models set`, `plans set`). */

/** `key=value`: the value as JSON when it reads as JSON (numbers, booleans, arrays), else as text; empty removes. */
export function assignments(pairs: string[]): { path: string[]; value: unknown }[] | string {
  const out: { path: string[]; value: unknown }[] = [];
  for (const pair of pairs) {
    const at = pair.indexOf("=");
    if (at <= 0) return `Not key=value: ${pair}`;
    const key = pair.slice(0, at);
    const text = pair.slice(at + 1);
    let value: unknown;
    if (text !== "")
      try {
        value = JSON.parse(text);
      } catch {
        value = text;
      }
    out.push({ path: key.split("."), value });
  }
  return out;
}

export function assign(target: Record<string, unknown>, path: string[], value: unknown) {
  let at: Record<string, unknown> = target;
  for (const key of path.slice(0, -1)) {
    const next = at[key];
    if (!next || typeof next !== "object" || Array.isArray(next)) at[key] = {};
    at = at[key] as Record<string, unknown>;
  }
  const last = path.at(-1)!;
  if (value === undefined) delete at[last];
  else at[last] = value;
}
