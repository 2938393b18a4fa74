import { describe, expect, it } from "vitest";
import { DEFAULT_RETURN_PATH, safeReturnPath } from "#common/return-path.ts";
import { HOSTILE_RETURN_PATHS } from "#tests/support/hostile-return-paths.ts";

describe("safeReturnPath", () => {
  it.each([
    "/dashboard/home",
    "/de/user/profile",
    "/user/profile?tab=sessions",
    "/dashboard/image/7595af7e#latest",
    "/pricing",
  ])("keeps the same-site path %s", (path) => {
    expect(safeReturnPath(path)).toBe(path);
  });

  it.each(HOSTILE_RETURN_PATHS)("refuses %j and falls back to the dashboard", (value) => {
    expect(safeReturnPath(value)).toBe(DEFAULT_RETURN_PATH);
  });

  it("refuses what is not a string", () => {
    expect(safeReturnPath(undefined)).toBe(DEFAULT_RETURN_PATH);
    expect(safeReturnPath(["/a"])).toBe(DEFAULT_RETURN_PATH);
    expect(safeReturnPath("/".repeat(3000))).toBe(DEFAULT_RETURN_PATH);
  });
});
