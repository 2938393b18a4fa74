import { pino, type Logger } from "pino";
import type { Env } from "#server/env.ts";

const REDACT = [
  "password",
  "*.password",
  "secret",
  "*.secret",
  "token",
  "*.token",
  "apiKey",
  "*.apiKey",
  "req.headers.authorization",
  "req.headers.cookie",
  "res.headers['set-cookie']",
  "databaseUrl",
];

export function createLogger(env: Pick<Env, "LOG_LEVEL" | "NODE_ENV">): Logger {
  const pretty = env.NODE_ENV === "development";
  return pino({
    level: env.LOG_LEVEL,
    redact: { paths: REDACT, censor: "[redacted]" },
    base: { pid: process.pid },
    ...(pretty ? { transport: { target: "pino-pretty", options: { colorize: true } } } : {}),
  });
}

/** Removes the password from a connection URL before it is shown anywhere. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "[unparseable url]";
  }
}
