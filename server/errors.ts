import { ERROR_CODES, type ErrorCode } from "#common/errors.ts";

/** The one error type use cases throw for outcomes the caller must show; anything else is a 500. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly messageKey: string;
  constructor(code: ErrorCode, message?: string) {
    super(message ?? code);
    this.code = code;
    this.status = ERROR_CODES[code].status;
    this.messageKey = ERROR_CODES[code].messageKey;
  }
}
