import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, runRole, startServer, type TestServer, serverDataDir } from "#tests/support/server.ts";
import { nextMail } from "#tests/support/outbox.ts";
import { eq } from "drizzle-orm";
import pino from "pino";
import { openPglite } from "#server/db/client.ts";
import { user } from "#server/db/schema/index.ts";
import { redeemCode } from "#server/modules/credits/redeem-code.ts";
import { getBalance } from "#server/modules/credits/ledger.ts";

const PASSWORD = "marble-Orchid-73!";
const EMAIL = "suspect@example.com";

/**
 * The operator's commands on the embedded database, run between server starts (PGlite is single-process):
 * `npm run admin -- grant|revoke|ban|unban <email>`.
 */
describe("operator commands", () => {
  const dataDir = serverDataDir();
  let port: number;
  let server: TestServer | undefined;
  let cookie = "";

  const start = async () => {
    server = await startServer({ PORT: String(port), DATA_DIR: dataDir, SITE_URL: `http://127.0.0.1:${port}` });
    return server;
  };
  const stop = async () => {
    await server?.close();
    server = undefined;
  };
  const admin = async (...args: string[]) => {
    const run = runRole("admin", { DATA_DIR: dataDir }, args);
    const code = await run.exited;
    return { code, output: run.output().trim() };
  };
  const post = (path: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
    fetch(`${server!.url}${path}`, {
      method: "POST",
      redirect: "manual",
      headers: { Origin: server!.url, "Sec-Fetch-Site": "same-origin", ...headers },
      body: new URLSearchParams(fields),
    });
  const signIn = () => post("/auth/login", { email: EMAIL, password: PASSWORD });

  beforeAll(async () => {
    port = await freePort();
    await start();
    await post("/auth/register", { name: "Sam", email: EMAIL, password: PASSWORD, terms: "on" });
    const mail = await nextMail(dataDir, EMAIL);
    expect((await fetch(mail.link, { redirect: "manual" })).status).toBe(302);
    const res = await signIn();
    expect(res.status).toBe(302);
    cookie = res.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    await stop();
  });
  afterAll(async () => {
    await stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("grants and revokes the admin role, and names an unknown account", async () => {
    expect(await admin("grant", EMAIL)).toEqual({ code: 0, output: `${EMAIL} is now an admin.` });
    await start();
    const me = await fetch(`${server!.url}/api/me`, { headers: { Cookie: cookie } });
    const body = (await me.json()) as { user: { role: string }; credits: unknown };
    expect(body.user.role).toBe("admin");
    // The sign-up bonus came with the first sign-in, once.
    expect(body.credits).toEqual({ balance: 20, held: 0, available: 20 });
    await stop();
    expect(await admin("revoke", EMAIL)).toEqual({ code: 0, output: `${EMAIL} is no longer an admin.` });
    expect(await admin("grant", "nobody@example.com")).toMatchObject({ code: 1 });
    expect((await admin("promote", EMAIL)).code).toBe(1);
  });

  it("suspends an account: its sessions end and sign-in says why; lifting it lets the person back in", async () => {
    expect(await admin("ban", EMAIL, "spam")).toEqual({
      code: 0,
      output: `${EMAIL} is suspended; its sessions have ended.`,
    });
    await start();
    const api = await fetch(`${server!.url}/api/me`, { headers: { Cookie: cookie } });
    expect(api.status).toBe(401);
    expect(((await api.json()) as { error: { code: string } }).error.code).toBe("session_expired");
    const page = await fetch(`${server!.url}/dashboard/home`, { headers: { Cookie: cookie }, redirect: "manual" });
    expect(page.headers.get("location")).toBe("/auth/login?redirect=%2Fdashboard%2Fhome&reason=expired");

    const refused = await signIn();
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('\\"formError\\",\\"error.banned\\"');
    await stop();

    expect(await admin("unban", EMAIL)).toEqual({ code: 0, output: `${EMAIL} can sign in again.` });
    await start();
    expect((await signIn()).status).toBe(302);
  });

  it("creates redemption codes that work, and refuses bad batches", async () => {
    await stop();
    const created = await admin(
      "codes",
      "create",
      "--credits",
      "50",
      "--uses",
      "2",
      "--count",
      "3",
      "--expires",
      "2099-12-31",
    );
    expect(created.code, created.output).toBe(0);
    const codes = created.output.split("\n").filter((line) => /^ATL-/.test(line));
    expect(codes).toHaveLength(3);
    for (const bad of [
      ["--credits", "-5"],
      ["--credits", "1.5"],
      ["--credits", "5", "--count", "5000"],
      ["--credits", "5", "--expires", "2001-01-01"],
      ["--credits", "5", "--expires", "soon"],
    ]) {
      expect((await admin("codes", "create", ...bad)).code, bad.join(" ")).toBe(1);
    }
    // The printed codes are the real ones: redeem one with the server stopped (PGlite is single-process).
    const handle = await openPglite(dataDir, pino({ level: "silent" }));
    try {
      const [owner] = await handle.db.select({ id: user.id }).from(user).where(eq(user.email, EMAIL));
      expect((await redeemCode({ db: handle.db, userId: owner!.id, code: codes[1]! })).credits).toBe(50);
    } finally {
      await handle.close();
    }
  });

  it("adjusts a balance up and down, never below what is available", async () => {
    await stop();
    const handle = await openPglite(dataDir, pino({ level: "silent" }));
    let before: number;
    try {
      const [owner] = await handle.db.select({ id: user.id }).from(user).where(eq(user.email, EMAIL));
      before = (await getBalance({ db: handle.db, userId: owner!.id })).balance;
    } finally {
      await handle.close();
    }
    expect(await admin("credits", EMAIL, "+30")).toEqual({
      code: 0,
      output: `${EMAIL} now has ${before + 30} credits.`,
    });
    expect(await admin("credits", EMAIL, "-10")).toEqual({
      code: 0,
      output: `${EMAIL} now has ${before + 20} credits.`,
    });
    for (const bad of [["-1000000"], ["0"], ["1.5"], ["lots"], []]) {
      expect((await admin("credits", EMAIL, ...bad)).code, bad.join(" ")).toBe(1);
    }
    expect((await admin("credits", "nobody@example.com", "+5")).code).toBe(1);
    await start();
    const cookie = (await signIn()).headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    const me = (await (await fetch(`${server!.url}/api/me`, { headers: { Cookie: cookie } })).json()) as {
      credits: { balance: number };
    };
    expect(me.credits.balance).toBe(before + 20);
  });
});
