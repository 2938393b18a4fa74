import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, startServer, type TestServer } from "#tests/support/server.ts";
import { signedIn } from "#tests/support/session.ts";
import { text } from "#tests/support/locales.ts";

describe("the HTTP edge against careless and hostile clients", () => {
  let server: TestServer;
  let origin: string;
  let cookie: string;

  beforeAll(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    server = await startServer({ PORT: String(port), SITE_URL: origin, CLIENT_IP_HEADER: "x-forwarded-for" });
    cookie = await signedIn(server, origin, "edge@example.com");
  });
  afterAll(async () => {
    await server?.close();
  });

  const sameSite = () => ({ Origin: origin, "Sec-Fetch-Site": "same-origin" });

  it("answers 400 with the error page to a page write whose body is not a form, and logs no stack", async () => {
    const bodies: { type?: string; body?: string }[] = [
      { type: "application/json", body: JSON.stringify({ email: "edge@example.com", password: "x" }) },
      { type: "text/plain", body: "email=edge@example.com" },
      { type: "multipart/form-data; boundary=xyz", body: "garbage with no boundary" },
      { type: "multipart/form-data", body: "--xyz\r\nbroken" },
      {},
    ];
    const targets: { path: string; signedIn: boolean }[] = [
      { path: "/auth/login", signedIn: false },
      { path: "/auth/register", signedIn: false },
      { path: "/auth/update-password", signedIn: false },
      { path: "/de/auth/login", signedIn: false },
      { path: "/auth/login.data", signedIn: false },
      { path: "/user/profile", signedIn: true },
      { path: "/user/orders", signedIn: true },
      { path: "/pricing", signedIn: true },
    ];
    const logBefore = server.output().length;
    for (const target of targets) {
      for (const { type, body } of bodies) {
        const res = await fetch(`${server.url}${target.path}`, {
          method: "POST",
          redirect: "manual",
          headers: {
            ...sameSite(),
            ...(type ? { "Content-Type": type } : {}),
            ...(target.signedIn ? { Cookie: cookie } : {}),
          },
          body,
        });
        const what = `${target.path} with ${type ?? "no body"}`;
        expect(res.status, what).toBe(400);
        const page = await res.text();
        if (!target.path.endsWith(".data")) {
          expect(page, what).toContain('data-status="400"');
          expect(page, what).toContain(
            target.path.startsWith("/de/") ? text("de", "common", "error.400") : text("en", "common", "error.400"),
          );
        }
      }
    }
    const log = server.output().slice(logBefore);
    expect(log).not.toMatch(/TypeError|\n\s+at /);
    expect(log.split("\n").filter(Boolean).length).toBeLessThanOrEqual(targets.length * bodies.length);

    // A form still works as it did.
    const form = await fetch(`${server.url}/auth/login`, {
      method: "POST",
      redirect: "manual",
      headers: sameSite(),
      body: new URLSearchParams({ email: "nobody@example.com", password: "wrong-password-1" }),
    });
    expect(form.status).toBe(401);
  });
});
