import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rmSync } from "node:fs";
import { freePort, startServer, TEST_DATABASE_URL, type TestServer, serverDataDir } from "#tests/support/server.ts";
import { createTestDatabase } from "#tests/support/postgres.ts";
import { nextMail } from "#tests/support/outbox.ts";
import { text } from "#tests/support/locales.ts";

const PASSWORD = "harbor-Violet-42!";
const GUESSES = 100;
/** At least this many of the guesses must be refused without their password being checked. */
const REFUSED_AT_LEAST = 97;
// On PostgreSQL two web processes share the database, and the guesses alternate between them.
const backend = TEST_DATABASE_URL ? "PostgreSQL, two web processes" : "PGlite";

type Cookies = string;

describe(`guessing one account's password (${backend})`, () => {
  let servers: TestServer[] = [];
  let origin: string;
  let db: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  let accounts = 0;
  const dataDir = serverDataDir();

  beforeAll(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    db = TEST_DATABASE_URL ? await createTestDatabase() : undefined;
    // Behind a "proxy": each request says which client it stands for, so the test can be a hundred addresses.
    // Two web processes on PostgreSQL share one storage, as every process of an installation must.
    // A hundred guesses at once are all worked (no admission bound): what is tested is how each is answered by the
    // guessing limits, not how a busy process sheds them (tests/integration/overload.test.ts).
    const env = {
      SITE_URL: origin,
      CLIENT_IP_HEADER: "x-forwarded-for",
      DATABASE_URL: db?.url,
      DATA_DIR: dataDir,
      MAX_CONCURRENT_REQUESTS: "0",
    };
    servers = [await startServer({ ...env, PORT: String(port) })];
    if (db) servers.push(await startServer({ ...env, WORKER: "off" }));
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
    rmSync(dataDir, { recursive: true, force: true });
    await db?.drop();
  });

  let turn = 0;
  function post(
    path: string,
    fields: Record<string, string>,
    { ip, cookies }: { ip: string; cookies?: Cookies },
  ): Promise<Response> {
    const server = servers[turn++ % servers.length]!;
    return fetch(`${server.url}${path}`, {
      method: "POST",
      redirect: "manual",
      headers: {
        Origin: server.url,
        "Sec-Fetch-Site": "same-origin",
        "X-Forwarded-For": ip,
        ...(cookies ? { Cookie: cookies } : {}),
      },
      body: new URLSearchParams(fields),
    });
  }

  const cookiesOf = (res: Response): Cookies =>
    res.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
  /** What a browser keeps once its session is over: the device cookie (the one that is not the session's). */
  const deviceOnly = (cookies: Cookies): Cookies =>
    cookies
      .split("; ")
      .filter((c) => c.startsWith("atelier.device="))
      .join("; ");

  /** A confirmed account, and the device cookie of the owner's browser, which signed in to it once. */
  async function account(): Promise<{ email: string; ownersBrowser: Cookies }> {
    const email = `owner-${++accounts}@example.com`;
    const ip = "192.0.2.10";
    await post("/auth/register", { name: "Owner", email, password: PASSWORD, terms: "on" }, { ip });
    await fetch((await nextMail(servers[0]!.dataDir, email)).link, { redirect: "manual" });
    const first = await post("/auth/login", { email, password: PASSWORD }, { ip });
    expect(first.status).toBe(302);
    return { email, ownersBrowser: deviceOnly(cookiesOf(first)) };
  }

  const guess = (email: string, i: number, ip: string) =>
    post("/auth/login", { email, password: `wrong-guess-${i}-password` }, { ip });

  /** The statuses of the guesses: 401 was checked and wrong; 429 was refused unchecked. */
  function expectBounded(statuses: number[]) {
    expect(statuses).toHaveLength(GUESSES);
    expect(
      statuses.every((s) => s === 401 || s === 429),
      statuses.join(","),
    ).toBe(true);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(REFUSED_AT_LEAST);
  }

  /** The owner, from their own browser and address, with the right password. */
  const ownerSignsIn = (email: string, ownersBrowser: Cookies) =>
    post("/auth/login", { email, password: PASSWORD }, { ip: "192.0.2.10", cookies: ownersBrowser });

  /** The owner got in at once, and their browser got a fresh device token. */
  function expectOwnerIn(res: Response, ownersBrowser: Cookies) {
    expect(ownersBrowser).toMatch(/^atelier\.device=\S+$/);
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/dashboard");
    // A fresh device token comes with every sign-in.
    const renewed = deviceOnly(cookiesOf(res));
    expect(renewed).toMatch(/^atelier\.device=\S+$/);
    expect(renewed).not.toBe(ownersBrowser);
  }

  // The two attacks one guess after another run side by side (each on an account of its own): every refusal takes
  // the answer-time floor, so one after the other they would take twice as long.
  it.concurrent(
    "refuses guesses from one address unchecked, the right password among them, while the owner signs in",
    async () => {
      const { email, ownersBrowser } = await account();
      const statuses: number[] = [];
      for (let i = 0; i < GUESSES; i++) {
        // Halfway, the guesser happens on the right password: refused like the rest, so it was never checked.
        const res =
          i === GUESSES / 2
            ? await post("/auth/login", { email, password: PASSWORD }, { ip: "203.0.113.9" })
            : await guess(email, i, "203.0.113.9");
        statuses.push(res.status);
        if (i === GUESSES / 2) {
          expect(res.status).toBe(429);
          expectOwnerIn(await ownerSignsIn(email, ownersBrowser), ownersBrowser);
        }
        if (res.status === 429 && i === GUESSES - 1) {
          const retryAfter = Number(res.headers.get("retry-after"));
          expect(retryAfter).toBeGreaterThan(0);
          expect(retryAfter).toBeLessThanOrEqual(15 * 60);
          expect(await res.text()).toContain(text("en", "auth", "locked.title").split("{{")[0]!.trim());
        }
      }
      expectBounded(statuses);
      // The owner's sign-in gave the guessers nothing back.
      expect((await guess(email, GUESSES, "203.0.113.9")).status).toBe(429);
    },
  );

  it.concurrent("refuses guesses from a hundred addresses one after another, while the owner signs in", async () => {
    const { email, ownersBrowser } = await account();
    const statuses: number[] = [];
    for (let i = 0; i < GUESSES; i++) {
      statuses.push((await guess(email, i, `198.51.${i}.7`)).status);
      if (i === 10) expectOwnerIn(await ownerSignsIn(email, ownersBrowser), ownersBrowser);
    }
    expectBounded(statuses);
  });

  it("refuses guesses from a hundred addresses at once, and the owner gets in at the same moment", async () => {
    const { email, ownersBrowser } = await account();
    const attack = Promise.all(Array.from({ length: GUESSES }, (_, i) => guess(email, i, `198.18.${i}.20`)));
    const [guesses, owner] = await Promise.all([attack, ownerSignsIn(email, ownersBrowser)]);
    expectBounded(guesses.map((r) => r.status));
    expectOwnerIn(owner, ownersBrowser);
  });

  it("refuses guesses from one address at once", async () => {
    const { email, ownersBrowser } = await account();
    const attack = Promise.all(Array.from({ length: GUESSES }, (_, i) => guess(email, i, "203.0.113.77")));
    const [guesses, owner] = await Promise.all([attack, ownerSignsIn(email, ownersBrowser)]);
    expectBounded(guesses.map((r) => r.status));
    expectOwnerIn(owner, ownersBrowser);
  });

  it("tells an owner without their browser why, in their language, and lets them in by choosing a new password", async () => {
    const { email } = await account();
    for (let i = 0; i < 5; i++) await guess(email, i, `198.51.${i}.99`);
    const owner = { ip: "192.0.2.200" };
    const refused = await post("/de/auth/login", { email, password: PASSWORD }, owner);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    const page = await refused.text();
    expect(page).toContain(text("de", "auth", "locked.title").split("{{")[0]!.trim());
    expect(page).toContain(text("de", "auth", "locked.reset"));
    expect(page).toContain('href="/de/auth/update-password"');
    // The owner was told by e-mail.
    const warning = await nextMail(servers[0]!.dataDir, email, (m) => m.subject.includes("Failed sign-ins"));
    expect(warning.link).toContain("/auth/update-password");

    expect((await post("/de/auth/update-password", { email }, owner)).status).toBe(200);
    const link = new URL((await nextMail(servers[0]!.dataDir, email, (m) => m.link.includes("token="))).link);
    const fresh = "Fresh-Battery-Staple-9";
    const reset = await post(`/de/auth/update-password${link.search}`, { password: fresh, confirm: fresh }, owner);
    expect(reset.status).toBe(302);
    const thisBrowser = deviceOnly(cookiesOf(reset));
    expect(thisBrowser).toMatch(/^atelier\.device=\S+$/);
    // Unknown browsers are still paused (the guessers' budget is spent), but this one is now known to the account.
    expect((await post("/de/auth/login", { email, password: fresh }, owner)).status).toBe(429);
    const signedIn = await post("/de/auth/login", { email, password: fresh }, { ...owner, cookies: thisBrowser });
    expect(signedIn.status).toBe(302);
  });

  it("checks no password anywhere else: the authentication library's own sign-in is not served", async () => {
    const res = await fetch(`${servers[0]!.url}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: origin },
      body: JSON.stringify({ email: "owner-1@example.com", password: PASSWORD }),
    });
    expect(res.status).toBe(404);
  });
});
