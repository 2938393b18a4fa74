import { createHash, randomInt } from "node:crypto";

// Crockford's base32: no I, L, O or U, so a code read aloud or typed by hand survives.
const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const PREFIX = "ATL";
const BODY_LENGTH = 12;
export const MAX_CODES_PER_BATCH = 1000;

/** A new code such as `ATL-7K2M-Q9XD-4HPA` (60 random bits). */
export function generateCode(): string {
  let body = "";
  for (let i = 0; i < BODY_LENGTH; i++) body += ALPHABET[randomInt(ALPHABET.length)];
  return `${PREFIX}-${body.slice(0, 4)}-${body.slice(4, 8)}-${body.slice(8)}`;
}

/** What a person typed, reduced to the canonical code: case, spaces, dashes and look-alike letters forgiven. */
export function normalizeCode(input: string): string | null {
  let s = input.toUpperCase().replace(/[^0-9A-Z]/g, "");
  if (s.startsWith(PREFIX)) s = s.slice(PREFIX.length);
  s = s.replace(/O/g, "0").replace(/[IL]/g, "1");
  if (s.length !== BODY_LENGTH || [...s].some((c) => !ALPHABET.includes(c))) return null;
  return `${PREFIX}${s}`;
}

/** What is stored of a code: its SHA-256, never the code itself. */
export const hashOf = (normalized: string) => createHash("sha256").update(normalized).digest("hex");
