/**
 * Return paths an attacker might try after sign-in: other sites (absolute, protocol-relative, backslashes, encoded
 * once or twice), script and data URLs, control characters, bare words, sign-in pages (a loop) and broken encoding.
 * Each must fall back to the dashboard.
 */
export const HOSTILE_RETURN_PATHS = [
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
];
