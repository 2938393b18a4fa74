import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { ROOT } from "#tests/support/server.ts";

describe("npm in this project", () => {
  it("prints errors only, not a warning per package whose engines want a newer Node than the one running npm", () => {
    const level = execFileSync("npm", ["config", "get", "loglevel"], { cwd: ROOT, encoding: "utf8" }).trim();
    expect(level).toBe("error");
  });
});
