/** The rows of a raw query: both drivers (node-postgres and PGlite) answer with an object holding `rows`. */
export function rowsOf<T>(result: unknown): T[] {
  return (result as { rows: T[] }).rows;
}
