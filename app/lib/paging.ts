/** Page numbers beyond this are not asked for by any link; a larger one reads as the first page. */
const MAX_PAGE = 10_000;

/** The page a `?page=`-style parameter asks for: a whole number from 1, or the first page. */
export function pageOf(value: string | null): number {
  const n = Number(value ?? 1);
  return Number.isSafeInteger(n) && n >= 1 && n <= MAX_PAGE ? n : 1;
}
