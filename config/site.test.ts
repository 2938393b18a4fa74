import { describe, expect, it } from "vitest";
import { parseEnv } from "#server/env.ts";
import { resolveSiteConfig } from "#config/site.ts";

describe("the site's address", () => {
  it("follows PORT when SITE_URL is not set, so local links open", () => {
    expect(resolveSiteConfig(parseEnv({})).url).toBe("http://localhost:3000");
    expect(resolveSiteConfig(parseEnv({ PORT: "41000" })).url).toBe("http://localhost:41000");
    // Any free port cannot be known before listening
    expect(resolveSiteConfig(parseEnv({ PORT: "0" })).url).toBe("http://localhost:3000");
  });

  it("is SITE_URL when set, without a trailing slash", () => {
    expect(resolveSiteConfig(parseEnv({ PORT: "41000", SITE_URL: "https://atelier.example/" })).url).toBe(
      "https://atelier.example",
    );
  });
});
