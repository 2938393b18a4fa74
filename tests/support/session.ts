import type { Browser, BrowserContext, BrowserContextOptions } from "playwright-core";
import type { TestServer } from "#tests/support/server.ts";
import { fakePng } from "#tests/fakes/replicate.ts";
import { nextMail } from "#tests/support/outbox.ts";

export const PASSWORD = "harbor-Violet-42!";

/**
 * Signs up, confirms and signs in through the pages; returns the Cookie header of the session. The confirmation is
 * read from the server's outbox unless `mail` finds it elsewhere (a bucket, say).
 */
export async function signedIn(
  server: TestServer,
  origin: string,
  email: string,
  mail: (to: string) => Promise<{ link: string }> = (to) => nextMail(server.dataDir, to),
): Promise<string> {
  const post = (path: string, fields: Record<string, string>) =>
    fetch(`${server.url}${path}`, {
      method: "POST",
      redirect: "manual",
      headers: { Origin: origin, "Sec-Fetch-Site": "same-origin" },
      body: new URLSearchParams(fields),
    });
  await post("/auth/register", { name: "Maker", email, password: PASSWORD, terms: "on" });
  await fetch((await mail(email)).link, { redirect: "manual" });
  const login = await post("/auth/login", { email, password: PASSWORD });
  if (login.status !== 302) throw new Error(`signing in as ${email} answered ${login.status}, not a redirect`);
  return login.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
}

/**
 * A browser context signed in as a fresh account (`email`, holding the sign-up bonus): signs up over HTTP and hands
 * the session cookie to the context. `options` are the context's (viewport, permissions, …).
 */
export async function signedInContext(
  browser: Browser,
  server: TestServer,
  email: string,
  options: BrowserContextOptions = { viewport: { width: 1280, height: 900 } },
): Promise<{ context: BrowserContext; cookie: string }> {
  const cookie = await signedIn(server, server.url, email);
  const context = await browser.newContext(options);
  await context.addCookies(
    cookie.split("; ").map((pair) => {
      const i = pair.indexOf("=");
      return { name: pair.slice(0, i), value: pair.slice(i + 1), url: server.url };
    }),
  );
  return { context, cookie };
}

/**
 * The internal API as the pages call it: the session cookie, a same-origin request (for the CSRF checks) and a
 * JSON body when there is one. `call("POST", "/api/keys", cookie, {})`.
 */
export function pageApi(server: TestServer, origin: string) {
  return async (method: string, path: string, cookie: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: {
        Cookie: cookie,
        Origin: origin,
        "Sec-Fetch-Site": "same-origin",
        ...(body !== undefined ? { "Content-Type": "application/json" } : {}),
        ...headers,
      },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    // A server error is never an expected answer: what the server logged about it goes with the failing test.
    if (res.status >= 500 && res.status !== 503) {
      console.error(
        `${method} ${path} answered ${res.status}; the server's last output:\n${server.output().slice(-4000)}`,
      );
    }
    return res;
  };
}

/** Uploads a small PNG as the pages do (`/api/uploads`) and returns its asset's id. */
export async function uploadImage(server: TestServer, origin: string, cookie: string): Promise<string> {
  const form = new FormData();
  form.append(
    "file",
    new Blob([new Uint8Array(await fakePng("a sketch", 64, 64))], { type: "image/png" }),
    "sketch.png",
  );
  const res = await fetch(`${server.url}/api/uploads`, {
    method: "POST",
    headers: { Cookie: cookie, Origin: origin, "Sec-Fetch-Site": "same-origin" },
    body: form,
  });
  if (res.status !== 201) throw new Error(`upload answered ${res.status}`);
  return ((await res.json()) as { upload: { id: string } }).upload.id;
}
