import { spawn } from "node:child_process";
import { existsSync, lstatSync, rmSync } from "node:fs";
import { eq } from "drizzle-orm";
import pino from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { user } from "#server/db/schema/index.ts";
import {
  adminSocketPath,
  listenForAdminCommands,
  sendAdminCommand,
  type AdminSocket,
  type AdminSocketOptions,
} from "#server/admin/socket.ts";
import { newProcessIdentity } from "#server/modules/installation/register-process.ts";
import { backends, insertUser, migratedDatabase } from "#tests/support/backends.ts";
import { tempDir } from "#tests/support/server.ts";

const silent = pino({ level: "silent" });

/** A socket file left behind by a process that died while listening (it never removed it). */
async function leaveStaleSocket(path: string) {
  const child = spawn(process.execPath, [
    "-e",
    `require("node:net").createServer().listen(${JSON.stringify(path)}, () => process.kill(process.pid, "SIGKILL"))`,
  ]);
  await new Promise((resolve) => child.once("exit", resolve));
  expect(lstatSync(path).isSocket()).toBe(true);
}

describe.each(backends)("commands handed to a running server through its socket on $name", (backend) => {
  const db = migratedDatabase(backend);
  const dirs: string[] = [];
  const sockets: AdminSocket[] = [];

  const listen = async (options: Partial<AdminSocketOptions> = {}) => {
    const dataDir = tempDir("atelier-socket-");
    dirs.push(dataDir);
    const socket = await listenForAdminCommands({
      dataDir,
      db: db(),
      server: newProcessIdentity("web", "test"),
      logger: silent,
      after: async () => undefined,
      ...options,
    });
    expect(socket).not.toBeNull();
    sockets.push(socket!);
    return socket!;
  };
  const send = (socket: AdminSocket, ...args: string[]) => sendAdminCommand(socket.path, { args, cwd: "/" });

  afterAll(async () => {
    for (const socket of sockets) await socket.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it("listens on a socket only its owner can open, replacing one left behind, and removes it when closed", async () => {
    const dataDir = tempDir("atelier-socket-");
    dirs.push(dataDir);
    const path = adminSocketPath(dataDir);
    await leaveStaleSocket(path);
    // Nothing listens on a socket left behind: the command line is told so, and runs the command itself.
    expect(await sendAdminCommand(path, { args: ["config"], cwd: "/" })).toBeNull();

    const umask = process.umask(0o022);
    process.umask(umask);
    const socket = await listen({ dataDir });
    expect(socket.path).toBe(path);
    expect(lstatSync(path).isSocket()).toBe(true);
    expect(lstatSync(path).mode & 0o777).toBe(0o600);
    // The process's own umask is back as it was (the files it makes later are not narrowed).
    expect(process.umask(umask)).toBe(umask);
    expect(await send(socket, "promote")).toMatchObject({ code: 1, stdout: "" });

    await socket.close();
    expect(existsSync(path)).toBe(false);
    expect(await sendAdminCommand(path, { args: ["config"], cwd: "/" })).toBeNull();
  });

  it("runs a command with the server's database, reads again what it changed, and answers as the command line would", async () => {
    let reads = 0;
    const socket = await listen({
      after: async () => {
        reads++;
      },
    });
    const id = await insertUser(db(), "Promoted");
    const email = `${id}@example.com`;
    expect(await send(socket, "grant", email)).toEqual({ stdout: `${email} is now an admin.\n`, stderr: "", code: 0 });
    const [row] = await db().select({ role: user.role }).from(user).where(eq(user.id, id));
    expect(row!.role).toBe("admin");
    expect(reads).toBe(1);
    expect(await send(socket, "credits", email, "+7")).toEqual({
      stdout: `${email} now has 7 credits.\n`,
      stderr: "",
      code: 0,
    });
    expect(await send(socket, "grant", "nobody@example.com")).toMatchObject({ code: 1, stdout: "" });
  });

  it("answers a command that fails or does not finish, and goes on serving the next", async () => {
    let hang = false;
    const socket = await listen({
      timeoutMs: 200,
      run: async (_ctx, args) => {
        if (args[0] === "boom") throw new Error("the disk is full");
        if (args[0] === "hang") {
          hang = true;
          return new Promise(() => undefined);
        }
        return { stdout: `ran ${args.join(" ")}\n`, stderr: "", code: 0 };
      },
    });
    expect(await send(socket, "boom")).toEqual({
      stdout: "",
      stderr: "The command failed: the disk is full\n",
      code: 1,
    });
    const late = await send(socket, "hang");
    expect(hang).toBe(true);
    expect(late).toMatchObject({ stdout: "", code: 1 });
    expect(late!.stderr).toMatch(/did not finish within 1 s; it may still complete/);
    expect(await send(socket, "next", "one")).toEqual({ stdout: "ran next one\n", stderr: "", code: 0 });
  });

  it("refuses a request that is not one line of JSON naming the arguments", async () => {
    const socket = await listen();
    const { connect } = await import("node:net");
    const raw = (line: string) =>
      new Promise<string>((resolve) => {
        let out = "";
        const client = connect(socket.path, () => client.write(line));
        client.on("data", (chunk) => (out += chunk.toString()));
        client.on("close", () => resolve(out));
      });
    for (const line of ["grant a@example.com\n", '{"args":"grant"}\n', '{"args":[1],"cwd":"/"}\n']) {
      expect(JSON.parse(await raw(line)), line).toMatchObject({ stdout: "", code: 1 });
    }
  });
});
