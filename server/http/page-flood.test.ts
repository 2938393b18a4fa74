import { describe, expect, it } from "vitest";
import { PageFloodGuard } from "./page-flood.ts";

describe("the page flood guard", () => {
  it("lets an address have its renders for a minute from its first, then says how long to wait", () => {
    const guard = new PageFloodGuard(3);
    const start = 1_000_000;
    expect([0, 1, 2].map((i) => guard.take("a", start + i * 1000))).toEqual([0, 0, 0]);
    expect(guard.take("a", start + 15_000)).toBe(45);
    // Other addresses have their own count.
    expect(guard.take("b", start + 15_000)).toBe(0);
    // A new window once the minute is over.
    expect(guard.take("a", start + 60_000)).toBe(0);
  });

  it("counts nothing when the bound is 0", () => {
    const guard = new PageFloodGuard(0);
    for (let i = 0; i < 1000; i++) expect(guard.take("a", i)).toBe(0);
  });
});
