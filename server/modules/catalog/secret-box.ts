import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from "node:crypto";

/**
 * Encrypts the secrets of provider connections at rest: AES-256-GCM under ENCRYPTION_KEY, or under a key derived
 * from the auth secret when it is unset. A sealed value names its key by a short fingerprint, so values sealed under
 * an earlier key (ENCRYPTION_KEY_PREVIOUS) still open after a rotation and are sealed again under the current one.
 */
export interface SecretBox {
  /** The current key's fingerprint (what `seal` writes). */
  keyId: string;
  seal(plain: string): string;
  /** The plain text, or throws `SecretUnreadable` when no key this process has sealed it or it was altered. */
  open(sealed: string): string;
  /** Whether a sealed value was sealed under an older key (to seal it again under the current one). */
  stale(sealed: string): boolean;
}

export class SecretUnreadable extends Error {}

const VERSION = "v1";

/** 32 bytes from a configured key: 64 hex digits or 44 base64 characters as they are, any other text through HKDF. */
export function keyFromText(text: string, purpose: string): Buffer {
  if (/^[0-9a-f]{64}$/i.test(text)) return Buffer.from(text, "hex");
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(text)) {
    const bytes = Buffer.from(text, text.includes("+") || text.includes("/") ? "base64" : "base64url");
    if (bytes.length === 32) return bytes;
  }
  return Buffer.from(hkdfSync("sha256", text, "atelier", purpose, 32));
}

const fingerprint = (key: Buffer) => createHash("sha256").update(key).digest("base64url").slice(0, 8);

/**
 * The box for a process: `encryptionKey` (ENCRYPTION_KEY) or the auth secret, and the keys it replaced
 * (ENCRYPTION_KEY_PREVIOUS, comma-separated), which only open.
 */
export function secretBox(options: { encryptionKey?: string; authSecret: string; previous?: string[] }): SecretBox {
  const current = options.encryptionKey
    ? keyFromText(options.encryptionKey, "connections")
    : keyFromText(options.authSecret, "connection-secrets");
  const keys = new Map<string, Buffer>([[fingerprint(current), current]]);
  for (const text of options.previous ?? []) {
    const key = keyFromText(text, "connections");
    keys.set(fingerprint(key), key);
  }
  // Values sealed under the auth secret stay readable once an ENCRYPTION_KEY is set.
  const derived = keyFromText(options.authSecret, "connection-secrets");
  if (!keys.has(fingerprint(derived))) keys.set(fingerprint(derived), derived);
  const keyId = fingerprint(current);
  return {
    keyId,
    seal(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", current, iv);
      cipher.setAAD(Buffer.from(`${VERSION}.${keyId}`));
      const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
      return [
        VERSION,
        keyId,
        iv.toString("base64url"),
        cipher.getAuthTag().toString("base64url"),
        body.toString("base64url"),
      ].join(".");
    },
    open(sealed) {
      const [version, id, iv, tag, body] = sealed.split(".");
      const key = id === undefined ? undefined : keys.get(id);
      if (version !== VERSION || !key || iv === undefined || tag === undefined || body === undefined)
        throw new SecretUnreadable(
          key ? "not a sealed secret" : `sealed under a key this process does not have (${id ?? "none"})`,
        );
      try {
        const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
        decipher.setAAD(Buffer.from(`${version}.${id}`));
        decipher.setAuthTag(Buffer.from(tag, "base64url"));
        return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
      } catch {
        throw new SecretUnreadable("the sealed secret was altered");
      }
    },
    stale(sealed) {
      return sealed.split(".")[1] !== keyId;
    },
  };
}
