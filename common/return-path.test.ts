import { describe, expect, it } from "vitest";
import { DEFAULT_RETURN_PATH, safeReturnPath } from "#common/return-path.ts";

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

  it.each([
    "https://evil.example/",
    "http://evil.example",
    "//evil.example",
    "//evil.example/dashboard",
    "///evil.example",
    "/\\evil.example",
    "\\\\evil.example",
    "/\\/evil.example",
    "%2F%2Fevil.example",
    "/%2F%2Fevil.example",
    "/%2f%2fevil.example",
    "/%5Cevil.example",
    "/%255C%255Cevil.example",
    "/%252F%252Fevil.example",
    "javascript:alert(1)",
    "JaVaScRiPt:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "/\tevil",
    "/\n/evil.example",
    " //evil.example",
    "evil.example",
    "dashboard",
    "https:/evil.example",
    "/auth/login",
    "/de/auth/register?redirect=/x",
    "",
    "/%E0%A4%A",
  ])("refuses %j and falls back to the dashboard", (value) => {
    expect(safeReturnPath(value)).toBe(DEFAULT_RETURN_PATH);
  });

  it("refuses what is not a string", () => {
    expect(safeReturnPath(undefined)).toBe(DEFAULT_RETURN_PATH);
    expect(safeReturnPath(["/a"])).toBe(DEFAULT_RETURN_PATH);
    expect(safeReturnPath("/".repeat(3000))).toBe(DEFAULT_RETURN_PATH);
  });
});
