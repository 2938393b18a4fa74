import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from "node:crypto";
import { parse, serialize } from "hono/utils/cookie";
import { COOKIE_PREFIX, type Auth } from "./auth.ts";

// A browser that has signed in to an account holds a token naming that account, signed with a key derived from the
// authentication secret: it is a known device for that account and keeps an allowance of failed sign-ins of its own,
// while attempts from everywhere else share the account's budget (see sign-in.ts). One cookie holds the tokens of the
// last few accounts signed in with that browser; a token does not say which account it is for (it is checked against
// the address being signed in to), so the cookie holds no e-mail address.

/** How long a device stays known without signing in again (each sign-in gives it a fresh token). */
export const DEVICE_DAYS = 365;
/** Accounts one browser is a known device for at once (the most recent sign-ins). */
const TOKENS_PER_BROWSER = 5;
const TOKEN = /^([0-9a-z]{1,10})\.([\w-]{22})\.([\w-]{32})$/;

interface DeviceKey {
  key: Buffer;
  name: string;
  secure: boolean;
}

const keys = new WeakMap<Auth, DeviceKey>();

function deviceKey(auth: Auth): DeviceKey {
  let known = keys.get(auth);
  if (!known) {
    const secure = auth.options.advanced?.useSecureCookies === true;
    known = {
      key: Buffer.from(hkdfSync("sha256", auth.options.secret, "", "atelier device cookie v1", 32)),
      // __Host- binds it to this origin (Secure, Path=/, no Domain) when the site is served over HTTPS.
      name: secure ? `__Host-${COOKIE_PREFIX}.device` : `${COOKIE_PREFIX}.device`,
      secure,
    };
    keys.set(auth, known);
  }
  return known;
}

const mac = (key: Buffer, email: string, expires: string, nonce: string) =>
  createHmac("sha256", key).update(`${email}\n${expires}\n${nonce}`).digest("base64url").slice(0, 32);

function tokensOf(auth: Auth, headers: Headers): string[] {
  const cookie = headers.get("cookie");
  if (!cookie) return [];
  const { name } = deviceKey(auth);
  const value = parse(cookie, name)[name];
  return value ? value.split("~").slice(0, TOKENS_PER_BROWSER) : [];
}

const seconds = (now: number) => Math.floor(now / 1000);

/** The nonce of this browser's token for the account at `email`, when it holds a valid one. */
export function knownDevice(auth: Auth, headers: Headers, email: string, now = Date.now()): string | null {
  const { key } = deviceKey(auth);
  for (const token of tokensOf(auth, headers)) {
    const parts = TOKEN.exec(token);
    if (!parts) continue;
    const [, expires, nonce, signature] = parts as unknown as [string, string, string, string];
    if (parseInt(expires, 36) <= seconds(now)) continue;
    const expected = Buffer.from(mac(key, email, expires, nonce));
    const given = Buffer.from(signature);
    if (given.length === expected.length && timingSafeEqual(given, expected)) return nonce;
  }
  return null;
}

/**
 * The Set-Cookie that makes this browser a known device for the account at `email`, with a fresh token (its old
 * one for this account is dropped), keeping its tokens for other accounts that have not expired.
 */
export function deviceCookie(auth: Auth, headers: Headers, email: string, now = Date.now()): string {
  const { key, name, secure } = deviceKey(auth);
  const expires = (seconds(now) + DEVICE_DAYS * 24 * 60 * 60).toString(36);
  const nonce = randomBytes(16).toString("base64url");
  const others = tokensOf(auth, headers).filter((token) => {
    const parts = TOKEN.exec(token);
    return (
      parts && parseInt(parts[1]!, 36) > seconds(now) && knownDevice(auth, cookieHeader(name, token), email) === null
    );
  });
  const tokens = [`${expires}.${nonce}.${mac(key, email, expires, nonce)}`, ...others].slice(0, TOKENS_PER_BROWSER);
  return serialize(name, tokens.join("~"), {
    path: "/",
    maxAge: DEVICE_DAYS * 24 * 60 * 60,
    httpOnly: true,
    sameSite: "Lax",
    secure,
  });
}

const cookieHeader = (name: string, value: string) => new Headers({ cookie: `${name}=${value}` });
