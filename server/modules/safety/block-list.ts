import type { BlockListScope } from "#common/safety.ts";
import type { Locale } from "#common/locales.ts";

/** One entry of a block list, ready to test a prompt with. */
interface Entry {
  /** The line as the operator wrote it (what the review queue names). */
  source: string;
  test: (text: string) => boolean;
}

// Scripts written without spaces between words: an entry in them matches anywhere, not only as a whole word.
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}]/u;
const INVISIBLE = /[\u00ad\u200b-\u200f\u2060\ufeff]/g;

/** What a prompt is compared as: compatibility forms folded (full-width letters), lower case, no invisible marks. */
export const normalizeForMatch = (text: string) => text.normalize("NFKC").replace(INVISIBLE, "").toLowerCase();

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** A line as an entry: `/pattern/flags`, `word*` (a word beginning so), or a word or phrase; null for an empty line. */
export function parseEntry(line: string): Entry | null {
  const source = line.trim();
  if (!source || source.startsWith("#")) return null;
  const pattern = /^\/(.+)\/([a-z]*)$/s.exec(source);
  if (pattern) {
    const flags = new Set<string>([...pattern[2]!].filter((f) => f === "i" || f === "s" || f === "m"));
    flags.add("u");
    flags.add("i");
    const regex = new RegExp(pattern[1]!, [...flags].join(""));
    return { source, test: (text) => regex.test(text) };
  }
  const prefix = source.endsWith("*");
  const word = normalizeForMatch(prefix ? source.slice(0, -1) : source);
  if (!word) return null;
  if (UNSPACED.test(word)) return { source, test: (text) => text.includes(word) };
  const regex = new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(word)}${prefix ? "" : "(?![\\p{L}\\p{N}])"}`, "u");
  return { source, test: (text) => regex.test(text) };
}

/** The first line of a list that cannot be read (a pattern that is not a valid regular expression), with its number. */
export function invalidLine(list: string): { line: number; text: string } | null {
  for (const [index, line] of list.split("\n").entries()) {
    try {
      parseEntry(line);
    } catch {
      return { line: index + 1, text: line.trim() };
    }
  }
  return null;
}

/**
 * The operator's block lists compiled once per change of the settings. The list for every language applies to every
 * prompt; a language's list to the requests made in that language (a word may be harmless in another: German
 * "Gift" is poison), and to every prompt when the request's language is not known.
 */
export class BlockList {
  readonly #entries = new Map<BlockListScope, Entry[]>();

  constructor(lists: Partial<Record<BlockListScope, string>>) {
    for (const [scope, list] of Object.entries(lists) as [BlockListScope, string | undefined][]) {
      const entries: Entry[] = [];
      for (const line of (list ?? "").split("\n")) {
        try {
          const entry = parseEntry(line);
          if (entry) entries.push(entry);
        } catch {
          // A line saved before it was checked, or by hand: skipped, never a failed request.
        }
      }
      if (entries.length > 0) this.#entries.set(scope, entries);
    }
  }

  /** The entries a text matches (at most a few: the queue shows what matched, not every hit). */
  matches(text: string, locale?: Locale, most = 5): string[] {
    const normalized = normalizeForMatch(text);
    const hits: string[] = [];
    for (const [scope, entries] of this.#entries) {
      if (scope !== "all" && locale !== undefined && scope !== locale) continue;
      for (const entry of entries) {
        if (entry.test(normalized)) hits.push(entry.source);
        if (hits.length >= most) return hits;
      }
    }
    return hits;
  }
}

const compiled = new WeakMap<object, BlockList>();

/** The compiled list for a settings value, made once per value. */
export function blockListOf(lists: Partial<Record<BlockListScope, string>>): BlockList {
  let list = compiled.get(lists);
  if (!list) {
    list = new BlockList(lists);
    compiled.set(lists, list);
  }
  return list;
}
