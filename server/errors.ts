import type { z } from "zod";
import { ERROR_CODES, type ErrorCode } from "#common/errors.ts";

/** The one error type use cases throw for outcomes the caller must show; anything else is a 500. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly messageKey: string;
  /** What the catalogue message fills in (the field, the model, what it takes). */
  readonly values: Record<string, string | number>;
  /**
   * `message` is the developer's detail (English); `say` picks a more precise catalogue message than the code's
   * own, and the values it names, so that the person reading it is told what is wrong.
   */
  constructor(code: ErrorCode, message?: string, say?: { key?: string; values?: Record<string, string | number> }) {
    super(message ?? code);
    this.code = code;
    this.status = ERROR_CODES[code].status;
    this.messageKey = say?.key ?? ERROR_CODES[code].messageKey;
    this.values = say?.values ?? {};
  }
}

/**
 * The refusal of a request that failed its schema, naming what is wrong: a field the request may not carry (a
 * misspelling) is `unknown_field`; a prompt out of bounds is `prompt_invalid`; any other field is `invalid_options`.
 */
export function requestError(issue: z.core.$ZodIssue | undefined): AppError {
  const at = issue?.path.map(String) ?? [];
  if (issue?.code === "unrecognized_keys") {
    const fields = issue.keys.map((k) => [...at, k].join(".")).join(", ");
    return new AppError("unknown_field", `unknown field: ${fields}`, { values: { field: fields } });
  }
  const field = at.join(".");
  if (field === "prompt") return new AppError("prompt_invalid", issue!.message);
  return new AppError("invalid_options", `${field || "request"}: ${issue?.message ?? "invalid"}`, {
    key: "generation.errors.invalidField",
    values: { field: field || "request" },
  });
}
