// The limits of the account forms and the strength shown under a new password. Kept apart from the zod schemas
// (auth-schema.ts), so the sign-in pages can show them without loading the schema library.

export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 128;
export const NAME_MAX = 80;

/** 0 (weak) to 3 (strong): length and variety, the hint shown under the password field. */
export function passwordStrength(password: string): 0 | 1 | 2 | 3 {
  if (password.length < PASSWORD_MIN) return 0;
  const classes = [/[a-z]/, /[A-Z]/, /\d/, /[^A-Za-z0-9]/].filter((r) => r.test(password)).length;
  let score = 0;
  if (password.length >= 10) score++;
  if (password.length >= 14) score++;
  if (classes >= 3) score++;
  if (classes === 4 && password.length >= 12) score++;
  if (/^(.)\1+$/.test(password) || /^(password|12345678|qwerty)/i.test(password)) score = 0;
  return Math.min(3, score) as 0 | 1 | 2 | 3;
}
