import { z } from "zod";
import { NAME_MAX, PASSWORD_MAX, PASSWORD_MIN } from "#common/auth-limits.ts";

/** Form inputs, shared by the pages (client-side checks) and their actions; messages are i18n keys. */
export const emailField = z
  .string()
  .trim()
  .toLowerCase()
  .max(254, "validation.emailInvalid")
  .pipe(z.email("validation.emailInvalid"));
export const passwordField = z
  .string()
  .min(PASSWORD_MIN, "validation.passwordLength")
  .max(PASSWORD_MAX, "validation.passwordLength");
export const nameField = z.string().trim().min(1, "validation.nameRequired").max(NAME_MAX, "validation.nameTooLong");

export const signInSchema = z.object({
  email: emailField,
  password: z.string().min(1, "validation.passwordRequired").max(PASSWORD_MAX, "validation.passwordLength"),
});

export const signUpSchema = z.object({
  name: nameField,
  email: emailField,
  password: passwordField,
  terms: z.literal("on", "register.termsRequired"),
});

export const emailOnlySchema = z.object({ email: emailField });

export const newPasswordSchema = z
  .object({ password: passwordField, confirm: z.string() })
  .refine((v) => v.password === v.confirm, { message: "validation.passwordMismatch", path: ["confirm"] });

export const changePasswordSchema = z
  .object({
    current: z.string().min(1, "validation.passwordRequired").max(PASSWORD_MAX),
    password: passwordField,
    confirm: z.string(),
  })
  .refine((v) => v.password === v.confirm, { message: "validation.passwordMismatch", path: ["confirm"] })
  .refine((v) => v.password !== v.current, { message: "validation.passwordSame", path: ["password"] });

export type FieldErrors = Partial<Record<string, string>>;

/** First message per field, as i18n keys. */
export function fieldErrors(error: z.ZodError): FieldErrors {
  const out: FieldErrors = {};
  for (const issue of error.issues) {
    const field = String(issue.path[0] ?? "form");
    out[field] ??= issue.message;
  }
  return out;
}
