import { createHmac, timingSafeEqual } from "node:crypto";

/** How long a signed link to a private file works: an hour, like the links OpenAI's image API returns. */
export const MEDIA_LINK_SECONDS = 60 * 60;

/** The formats a signed link may ask an image to be sent in, by the extension in its path. */
export const LINK_FORMATS = { png: "image/png", jpg: "image/jpeg", jpeg: "image/jpeg", webp: "image/webp" } as const;
export type LinkFormat = keyof typeof LINK_FORMATS;

export interface MediaLinks {
  /** `/media/<id>.<ext>?expires=…&sig=…`: opens the file without a session for `seconds` or up to an hour more. */
  sign(path: string, options?: { seconds?: number; now?: number }): string;
  /** Whether a path (without its query) was signed with this expiry and signature, and has not expired. */
  verify(path: string, expires: string | undefined, signature: string | undefined, now?: number): boolean;
}

/**
 * Signed links to media: what an API client is given to download a private result with no cookie. The signature is
 * an HMAC of the path and its expiry under a key derived from the application's secret, so a link names one file in
 * one format and cannot be stretched to another file or a later time.
 */
export function mediaLinks(secret: string): MediaLinks {
  const key = createHmac("sha256", secret).update("atelier media link v1").digest();
  const mac = (path: string, expires: number) =>
    createHmac("sha256", key).update(`${path}\n${expires}`).digest("base64url").slice(0, 32);
  // A link's expiry is rounded up to the hour, so that the same file read again within the hour has the same link
  // (a cache keeps it; an API client polling a job does not sign anew each time).
  const made = new Map<string, string>();
  return {
    sign(path, { seconds = MEDIA_LINK_SECONDS, now = Date.now() } = {}) {
      const expires = Math.ceil((now / 1000 + seconds) / 3600) * 3600;
      const id = `${path}\n${expires}`;
      let link = made.get(id);
      if (!link) {
        if (made.size >= 10_000) made.clear();
        link = `${path}?expires=${expires}&sig=${mac(path, expires)}`;
        made.set(id, link);
      }
      return link;
    },
    verify(path, expires, signature, now = Date.now()) {
      if (!expires || !signature || !/^\d{1,12}$/.test(expires)) return false;
      const at = Number(expires);
      if (at * 1000 <= now) return false;
      const expected = Buffer.from(mac(path, at));
      const given = Buffer.from(signature);
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
  };
}
