import { createHash, timingSafeEqual } from "node:crypto";

/**
 * Whether an Authorization header carries `token` as a bearer token (always, when no token is configured). Both
 * sides are hashed first, so the comparison takes the same time whatever was sent.
 */
export function bearerCheck(token: string | undefined): (header: string | undefined) => boolean {
  if (!token) return () => true;
  const digest = (value: string) => createHash("sha256").update(value).digest();
  const expected = digest(token);
  return (header) => {
    const sent = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "")?.[1];
    return sent !== undefined && timingSafeEqual(digest(sent), expected);
  };
}
