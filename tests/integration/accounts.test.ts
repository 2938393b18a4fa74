import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, startServer, type TestServer } from "#tests/support/server.ts";
import { nextMail } from "#tests/support/outbox.ts";
import { text } from "#tests/support/locales.ts";
import { HOSTILE_RETURN_PATHS } from "#tests/support/hostile-return-paths.ts";

const PASSWORD = "harbor-Violet-42!";

describe("accounts over HTTP", () => {
  let server: TestServer;
  let origin: string;

  beforeAll(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    // Behind a "proxy": requests say which client they stand for, so tests can act as many visitors.
    server = await startServer({ PORT: String(port), SITE_URL: origin, CLIENT_IP_HEADER: "x-forwarded-for" });
    // One confirmed account for the tests below.
    await post("/auth/register", { name: "Ola", email: "ola@example.com", password: PASSWORD, terms: "on" });
    const mail = await nextMail(server.dataDir, "ola@example.com");
    const verified = await fetch(mail.link, { redirect: "manual" });
    expect(verified.status).toBe(302);
  });
  afterAll(async () => {
    await server?.close();
  });

  function post(path: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
    return fetch(`${server.url}${path}`, {
      method: "POST",
      redirect: "manual",
      headers: { Origin: origin, "Sec-Fetch-Site": "same-origin", ...headers },
      body: new URLSearchParams(fields),
    });
  }

  it("returns only to same-site paths after sign-in", async () => {
    expect(HOSTILE_RETURN_PATHS.length).toBeGreaterThanOrEqual(20);
    for (const [i, redirect] of HOSTILE_RETURN_PATHS.entries()) {
      const res = await post(
        "/auth/login",
        { email: "ola@example.com", password: PASSWORD, redirect },
        { "X-Forwarded-For": `203.0.113.7, 198.51.100.${i + 1}` },
      );
      expect(res.status, redirect).toBe(302);
      expect(res.headers.get("location"), redirect).toBe("/dashboard");
    }
    const good = await post("/auth/login", {
      email: "ola@example.com",
      password: PASSWORD,
      redirect: "/user/profile?x=1",
    });
    expect(good.headers.get("location")).toBe("/user/profile?x=1");
    expect(good.headers.getSetCookie().join("\n")).toMatch(/atelier\.session_token=[^;]+;.*HttpOnly/i);
    expect(good.headers.getSetCookie().join("\n")).toMatch(/SameSite=Lax/i);
  });

  it("rejects cross-site writes with 403", async () => {
    const evilOrigin = await post(
      "/auth/login",
      { email: "ola@example.com", password: PASSWORD },
      { Origin: "https://evil.example", "Sec-Fetch-Site": "" },
    );
    expect(evilOrigin.status).toBe(403);
    const crossSite = await post("/auth/logout", {}, { "Sec-Fetch-Site": "cross-site" });
    expect(crossSite.status).toBe(403);
    const api = await fetch(`${server.url}/api/me`, { method: "POST", headers: { Origin: "https://evil.example" } });
    expect(api.status).toBe(403);
  });

  it("answers the same for existing and unknown e-mails", async () => {
    // Pages differ only in their per-response nonce.
    const page = async (res: Response) => (await res.text()).replace(/[A-Za-z0-9+/]{22}==/g, "NONCE");
    const known = await post("/auth/login", { email: "ola@example.com", password: "wrong-password-1" });
    const unknown = await post("/auth/login", { email: "nobody@example.com", password: "wrong-password-1" });
    expect(known.status).toBe(unknown.status);
    const knownText = await page(known);
    expect(knownText).toContain(text("en", "auth", "error.invalidCredentials"));
    expect((await page(unknown)).replace("nobody@example.com", "ola@example.com")).toContain(
      text("en", "auth", "error.invalidCredentials"),
    );

    const resetKnown = await post("/auth/update-password", { email: "ola@example.com" });
    const resetUnknown = await post("/auth/update-password", { email: "nobody@example.com" });
    expect(resetKnown.status).toBe(200);
    expect(resetUnknown.status).toBe(200);
    const strip = (html: string, email: string) => html.replaceAll(email, "EMAIL").replace(/"requestId":"[^"]+"/g, "");
    expect(strip(await page(resetUnknown), "nobody@example.com")).toBe(
      strip(await page(resetKnown), "ola@example.com"),
    );
  });

  it("refuses guesses at an account past a small budget, but never locks the owner out, and warns them", async () => {
    await post("/auth/register", { name: "Kai", email: "kai@example.com", password: PASSWORD, terms: "on" });
    await fetch((await nextMail(server.dataDir, "kai@example.com")).link, { redirect: "manual" });
    // The owner signs in once from their browser, which keeps its device cookie after the session ends.
    const first = await post("/auth/login", { email: "kai@example.com", password: PASSWORD });
    const device = first.headers
      .getSetCookie()
      .map((c) => c.split(";")[0]!)
      .filter((c) => c.startsWith("atelier.device="))
      .join("; ");
    expect(device).not.toBe("");
    const guesser = { "X-Forwarded-For": "203.0.113.66" };
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      const res = await post("/auth/login", { email: "kai@example.com", password: `guess-${i}-password` }, guesser);
      statuses.push(res.status);
      if (res.status === 429) {
        expect(await res.text()).toContain(text("en", "auth", "locked.title").split("{{")[0]!.trim());
      }
    }
    expect(statuses).toEqual([401, 401, 401, 429, 429, 429, 429]);
    // The guessing address does not get in with the right password either while the pause lasts, nor does any other
    // browser the account does not know…
    expect((await post("/auth/login", { email: "kai@example.com", password: PASSWORD }, guesser)).status).toBe(429);
    const elsewhere = { "X-Forwarded-For": "192.0.2.44" };
    expect((await post("/auth/login", { email: "kai@example.com", password: PASSWORD }, elsewhere)).status).toBe(429);
    // …but the owner's own browser does.
    const owner = await post(
      "/auth/login",
      { email: "kai@example.com", password: PASSWORD },
      { ...elsewhere, Cookie: device },
    );
    expect(owner.status).toBe(302);
    const warning = await nextMail(server.dataDir, "kai@example.com", (m) => m.link.includes("/auth/update-password"));
    expect(warning.subject).toContain("Failed sign-ins");
  });

  it("serves only the OAuth and session endpoints of the auth API", async () => {
    const signUp = await fetch(`${server.url}/api/auth/sign-up/email`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: origin },
      body: JSON.stringify({ email: "x@example.com", password: PASSWORD, name: "X" }),
    });
    expect(signUp.status).toBe(404);
    const session = await fetch(`${server.url}/api/auth/get-session`);
    expect(session.status).toBe(200);
  });
});
