import { describe, expect, it } from "vitest";
import { parseEnv } from "#server/env.ts";

describe("parseEnv", () => {
  it("fills every default from an empty environment", () => {
    const env = parseEnv({});
    expect(env).toMatchObject({
      NODE_ENV: "production",
      PORT: 3000,
      HOST: "0.0.0.0",
      DATA_DIR: "./data",
      WORKER: "on",
      LOG_LEVEL: "info",
      TRUST_PROXY: false,
    });
    expect(env.DATABASE_URL).toBeUndefined();
  });

  it("treats an empty value as unset", () => {
    const env = parseEnv({ PORT: "", DATABASE_URL: "" });
    expect(env.PORT).toBe(3000);
    expect(env.DATABASE_URL).toBeUndefined();
  });

  it("coerces numbers and booleans", () => {
    const env = parseEnv({ PORT: "8080", TRUST_PROXY: "on", WORKER_CONCURRENCY: "4" });
    expect(env).toMatchObject({ PORT: 8080, TRUST_PROXY: true, WORKER_CONCURRENCY: 4 });
    expect(parseEnv({ TRUST_PROXY: "0" }).TRUST_PROXY).toBe(false);
  });

  it.each([
    [{ PORT: "70000" }, 'Invalid environment variable PORT: expected a value of at most 65535 (got "70000")'],
    [{ PORT: "-1" }, 'Invalid environment variable PORT: expected a value of at least 0 (got "-1")'],
    [{ WORKER: "maybe" }, 'Invalid environment variable WORKER: expected one of on, off (got "maybe")'],
    [
      { SITE_PRIMARY_COLOR: "blue" },
      'Invalid environment variable SITE_PRIMARY_COLOR: expected a colour like #4f46e5 (got "blue")',
    ],
    [
      { DATABASE_URL: "mysql://db" },
      'Invalid environment variable DATABASE_URL: expected a postgres:// or postgresql:// connection URL (got "mysql://db")',
    ],
  ])("names the variable and what is expected: %o", (source, message) => {
    expect(() => parseEnv(source)).toThrow(message);
  });

  it("never echoes more than the offending variable", () => {
    expect(() => parseEnv({ PORT: "x", DATABASE_URL: "postgres://u:secret@h/db" })).toThrow(
      /^Invalid environment variable PORT: [^\n]*\(got "x"\)$/,
    );
  });
});
