import { expect } from "vitest";
import type { TestServer } from "#tests/support/server.ts";
import { nextMail } from "#tests/support/outbox.ts";

export const PASSWORD = "harbor-Violet-42!";

/** Signs up, confirms and signs in through the pages; returns the Cookie header of the session. */
export async function signedIn(server: TestServer, origin: string, email: string): Promise<string> {
  const post = (path: string, fields: Record<string, string>) =>
    fetch(`${server.url}${path}`, {
      method: "POST",
      redirect: "manual",
      headers: { Origin: origin, "Sec-Fetch-Site": "same-origin" },
      body: new URLSearchParams(fields),
    });
  await post("/auth/register", { name: "Maker", email, password: PASSWORD, terms: "on" });
  const mail = await nextMail(server.dataDir, email);
  await fetch(mail.link, { redirect: "manual" });
  const login = await post("/auth/login", { email, password: PASSWORD });
  expect(login.status).toBe(302);
  return login.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
}
