import { describe, expect, it } from "vitest";
import { redactUrl } from "#server/logger.ts";

describe("redactUrl", () => {
  it("hides the password and keeps the rest", () => {
    expect(redactUrl("postgres://atelier:s3cret@db:5432/atelier")).toBe("postgres://atelier:***@db:5432/atelier");
    expect(redactUrl("postgres://db/atelier")).toBe("postgres://db/atelier");
  });

  it("shows nothing of a URL it cannot parse", () => {
    expect(redactUrl("not a url :secret@")).toBe("[unparseable url]");
  });
});
