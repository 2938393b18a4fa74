import { pathFor, stripLocale } from "#common/locales.ts";

export const DEFAULT_RETURN_PATH = "/dashboard";

/**
 * A return path after sign-in: only a same-site relative path ("/x", never "//x", "/\\x" or anything with a
 * scheme or control characters) is kept; everything else falls back to the dashboard.
 */
export function safeReturnPath(value: unknown, fallback = DEFAULT_RETURN_PATH): string {
  if (typeof value !== "string" || value.length === 0 || value.length > 2048) return fallback;
  if (!value.startsWith("/") || value.startsWith("//") || value.startsWith("/\\")) return fallback;
  // Browsers treat backslashes as slashes and drop tabs and newlines: reject both rather than guess.
  // eslint-disable-next-line no-control-regex
  if (/[\\\u0000-\u001f\u007f]/.test(value)) return fallback;
  let decoded = value;
  try {
    // Encoded tricks (%2F%2F, %5C) become dangerous once another layer decodes them.
    for (let i = 0; i < 3; i++) {
      const next = decodeURIComponent(decoded);
      if (next === decoded) break;
      decoded = next;
    }
  } catch {
    return fallback;
  }
  // eslint-disable-next-line no-control-regex
  if (decoded.startsWith("//") || /[\\\u0000-\u001f\u007f]/.test(decoded)) return fallback;
  const parsed = new URL(value, "http://atelier.invalid");
  if (parsed.origin !== "http://atelier.invalid") return fallback;
  // Going back to a sign-in page after signing in would be a loop.
  if (/^\/auth(\/|$)/.test(stripLocale(parsed.pathname))) return fallback;
  return `${parsed.pathname}${parsed.search}${parsed.hash}`;
}

/** The sign-in page in the language of `currentPathname`, returning to `returnTo` (saying why when a session expired). */
export function signInHref(currentPathname: string, returnTo: string, reason?: "expired") {
  const query = new URLSearchParams({ redirect: returnTo });
  if (reason) query.set("reason", reason);
  return `${pathFor(currentPathname, "/auth/login")}?${query.toString()}`;
}
