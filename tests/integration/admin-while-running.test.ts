import { existsSync, lstatSync, rmSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runRole, startServer, waitFor, type TestServer, serverDataDir } from "#tests/support/server.ts";
import { nextMail } from "#tests/support/outbox.ts";

const PASSWORD = "marble-Orchid-73!";
const EMAIL = "operator@example.com";

/**
 * The operator's commands on the embedded database while the server runs: `npm run admin -- …` hands each command to
 * the server through the socket in the data folder, and what it changed is there at once, with no restart.
 */
describe("operator commands while the server runs on the embedded database", () => {
  const dataDir = serverDataDir();
  let server: TestServer;
  let cookie = "";

  const admin = async (...args: string[]) => {
    const run = runRole("admin", { DATA_DIR: dataDir }, args);
    const code = await run.exited;
    return { code, output: run.output().trim() };
  };
  const post = (path: string, fields: Record<string, string>) =>
    fetch(`${server.url}${path}`, {
      method: "POST",
      redirect: "manual",
      headers: { Origin: server.url, "Sec-Fetch-Site": "same-origin" },
      body: new URLSearchParams(fields),
    });
  const me = async () => {
    const res = await fetch(`${server.url}/api/me`, { headers: { Cookie: cookie } });
    return { status: res.status, body: (await res.json()) as { user: { role: string }; credits: { balance: number } } };
  };
  const signIn = async () => {
    const res = await post("/auth/login", { email: EMAIL, password: PASSWORD });
    expect(res.status).toBe(302);
    cookie = res.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
  };

  beforeAll(async () => {
    server = await startServer({ DATA_DIR: dataDir });
    await post("/auth/register", { name: "Olu", email: EMAIL, password: PASSWORD, terms: "on" });
    const mail = await nextMail(dataDir, EMAIL);
    expect((await fetch(mail.link, { redirect: "manual" })).status).toBe(302);
    await signIn();
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("listens for commands on a socket in the data folder that only its owner can open", () => {
    const socket = lstatSync(join(dataDir, "atelier-admin.sock"));
    expect(socket.isSocket()).toBe(true);
    expect(socket.mode & 0o777).toBe(0o600);
  });

  it("grants the admin role: the console opens at once, with no restart", async () => {
    const before = await fetch(`${server.url}/user/admin`, { headers: { Cookie: cookie }, redirect: "manual" });
    expect(before.status).not.toBe(200);
    expect(await admin("grant", EMAIL)).toEqual({ code: 0, output: `${EMAIL} is now an admin.` });
    expect((await me()).body.user.role).toBe("admin");
    const console = await fetch(`${server.url}/user/admin`, { headers: { Cookie: cookie }, redirect: "manual" });
    expect(console.status).toBe(200);
    expect(await admin("grant", "nobody@example.com")).toEqual({
      code: 1,
      output: "No account with the e-mail nobody@example.com. It must sign up first (or list it in ADMIN_EMAILS).",
    });
  });

  it("adjusts credits, refusing to take more than is available", async () => {
    const { balance } = (await me()).body.credits;
    expect(await admin("credits", EMAIL, "+25")).toEqual({
      code: 0,
      output: `${EMAIL} now has ${balance + 25} credits.`,
    });
    expect((await me()).body.credits.balance).toBe(balance + 25);
    const refused = await admin("credits", EMAIL, "-1000000");
    expect(refused.code).toBe(1);
    expect(refused.output).toContain(`${EMAIL} does not have that many credits available`);
    expect((await me()).body.credits.balance).toBe(balance + 25);
  });

  it("suspends an account: its session ends at once; lifting it lets the person back in", async () => {
    expect(await admin("ban", EMAIL, "testing")).toEqual({
      code: 0,
      output: `${EMAIL} is suspended; its sessions have ended.`,
    });
    expect((await me()).status).toBe(401);
    expect(await admin("unban", EMAIL)).toEqual({ code: 0, output: `${EMAIL} can sign in again.` });
    await signIn();
    expect((await me()).status).toBe(200);
  });

  it("answers an unknown command with the usage text and exit code 1, from the server", async () => {
    const unknown = await admin("promote", EMAIL);
    expect(unknown.code).toBe(1);
    expect(unknown.output).toMatch(/^Usage: npm run admin -- <command> <email>\n {2}grant <email> /);
    await waitFor("the server to log the command", async () =>
      server.output().includes('"command":"promote","msg":"admin command from the command line"'),
    );
  });

  it("lists the running server among the processes, and creates codes", async () => {
    const config = await admin("config");
    expect(config.code).toBe(0);
    expect(config.output).toContain(`Running: web on ${hostname()} (PID ${server.proc.pid}), seen 0 s ago.`);
    const codes = await admin("codes", "create", "--credits", "5", "--count", "2");
    expect(codes.code, codes.output).toBe(0);
    expect(codes.output.split("\n").filter((line) => /^ATL-/.test(line))).toHaveLength(2);
  });

  it("removes the socket when the server stops; the command line then opens the database itself", async () => {
    await server.stop();
    expect(existsSync(join(dataDir, "atelier-admin.sock"))).toBe(false);
    expect(await admin("revoke", EMAIL)).toEqual({ code: 0, output: `${EMAIL} is no longer an admin.` });
  });
});
