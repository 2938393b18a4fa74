/** A database problem at start-up that the operator must fix; its message is shown as it is. */
export class DatabaseStartError extends Error {}

/** The database said a unique index refused the row (PostgreSQL 23505), however the driver wraps it. */
export function isUniqueViolation(error: unknown): boolean {
  for (let e: unknown = error; e && typeof e === "object"; e = (e as { cause?: unknown }).cause) {
    if ((e as { code?: unknown }).code === "23505") return true;
  }
  return false;
}

/** Errors that mean "the database cannot be reached right now" rather than a bug: answered with 503. */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e: unknown = error; e && typeof e === "object"; e = (e as { cause?: unknown }).cause) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === "string") {
      if (["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EAI_AGAIN"].includes(code)) return true;
      // SQLSTATE classes 08 (connection exception) and 57P (operator intervention: shutdown, crash recovery)
      if (code.startsWith("08") || code.startsWith("57P")) return true;
    }
    if (
      typeof message === "string" &&
      /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Cannot use a pool after calling end/i.test(
        message,
      )
    ) {
      return true;
    }
  }
  return false;
}

/**
 * A connection that drops between queries can surface as an 'error' event nobody listens to (a pool client
 * checked out at that moment, a library's own client). That must not take the process down: it is logged and
 * the next query reconnects. Any other uncaught error still ends the process, as it should.
 */
export function survivingLostConnections(logger: {
  warn(obj: object, msg: string): void;
  fatal(obj: object, msg: string): void;
}) {
  const onError = (error: unknown) => {
    if (isDatabaseUnavailable(error)) {
      logger.warn({ err: (error as Error).message }, "database connection lost outside a request");
      return;
    }
    logger.fatal({ err: error }, "uncaught error");
    process.exit(1);
  };
  process.on("uncaughtException", onError);
  process.on("unhandledRejection", onError);
}
