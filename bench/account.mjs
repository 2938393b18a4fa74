// An account made the way a person makes one: sign up on the page, confirm from the outbox, sign in. Shared by the
// scenarios that measure signed-in pages and the studio's own API.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { URLSearchParams } from "node:url";

/** The account `signUp` makes unless told another. */
export const BENCH_EMAIL = "bench@bench.invalid";

/** The headers of a form posted from one of Atelier's own pages. */
export const samePage = (base) => ({ Origin: base, "Sec-Fetch-Site": "same-origin" });

/**
 * Signs up `email` on the server at `base` (whose `DATA_DIR` is `dataDir`, where the outbox lies), follows the
 * confirmation link and signs in. Returns the session's `Cookie` header.
 */
export async function signUp(base, dataDir, { email = BENCH_EMAIL, password = "bench-Harbor-42!" } = {}) {
  const page = samePage(base);
  const form = (fields) => new URLSearchParams(fields);
  await fetch(`${base}/auth/register`, {
    method: "POST",
    redirect: "manual",
    headers: page,
    body: form({ name: "Bench", email, password, terms: "on" }),
  });
  let link = null;
  const deadline = performance.now() + 30_000;
  while (!link && performance.now() < deadline) {
    try {
      const outbox = join(dataDir, "files", "outbox");
      for (const file of readdirSync(outbox).filter((f) => f.endsWith(".json"))) {
        const mail = JSON.parse(readFileSync(join(outbox, file), "utf8"));
        if (mail.to === email) link = mail.link;
      }
    } catch {
      // The outbox folder appears with the first message
    }
    if (!link) await sleep(100);
  }
  if (!link) throw new Error("no confirmation e-mail");
  await fetch(link, { redirect: "manual" });
  const login = await fetch(`${base}/auth/login`, {
    method: "POST",
    redirect: "manual",
    headers: page,
    body: form({ email, password }),
  });
  const cookie = login.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  if (!cookie) throw new Error(`signing in answered ${login.status} without a session`);
  return cookie;
}
