import { afterAll, describe, expect, it } from "vitest";
import { readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createServer } from "node:net";
import { runRole, startServer, tempDir } from "#tests/support/server.ts";

const dirs: string[] = [];
const dir = () => {
  const d = tempDir();
  dirs.push(d);
  return d;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

async function failsWith(env: Record<string, string>) {
  const run = runRole("web", { DATA_DIR: dir(), HOST: "127.0.0.1", ...env });
  const code = await run.exited;
  const lines = run
    .output()
    .split("\n")
    .filter((l) => l.trim() && !l.startsWith("{"));
  return { code, lines };
}

describe("invalid configuration", () => {
  it.each([
    ["PORT", "not-a-port", /^Invalid environment variable PORT: expected a number/],
    ["PORT", "70000", /^Invalid environment variable PORT: expected a value of at most 65535/],
    ["LOG_LEVEL", "loud", /^Invalid environment variable LOG_LEVEL: expected one of fatal, error/],
    ["DATABASE_URL", "mysql://x", /^Invalid environment variable DATABASE_URL: expected a postgres:\/\//],
    ["WORKER", "maybe", /^Invalid environment variable WORKER: expected one of on, off/],
    ["SITE_URL", "ftp://example.com", /^Invalid environment variable SITE_URL/],
  ])("%s=%s stops the process with exit code 1 and one line naming it", async (name, value, message) => {
    const { code, lines } = await failsWith({ [name]: value, PORT: name === "PORT" ? value : "0" });
    expect(code).toBe(1);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(message);
  });

  it("a port in use is one clear line and exit code 1", async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, "127.0.0.1", r));
    const port = (blocker.address() as { port: number }).port;
    try {
      const { code, lines } = await failsWith({ PORT: String(port) });
      expect(code).toBe(1);
      expect(lines).toEqual([`Port ${port} on 127.0.0.1 is already in use; stop the other server or set PORT.`]);
    } finally {
      blocker.close();
    }
  });
});

describe("the embedded database folder", () => {
  it("refuses a second process on the same folder and leaves the first one and its data intact", async () => {
    const dataDir = dir();
    const first = await startServer({ DATA_DIR: dataDir });
    try {
      const before = readdirSync(`${dataDir}/pglite`).sort();
      const { code, lines } = await failsWith({ DATA_DIR: dataDir, PORT: "0" });
      expect(code).toBe(1);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(`is in use by another Atelier process (PID ${first.proc.pid})`);
      expect(readdirSync(`${dataDir}/pglite`).sort()).toEqual(before);
      expect((await fetch(`${first.url}/readyz`)).status).toBe(200);
    } finally {
      await first.close();
    }
  });

  it("starts again on the same folder after a clean stop, migrating nothing twice", async () => {
    const dataDir = dir();
    const first = await startServer({ DATA_DIR: dataDir });
    expect(await first.stop()).toBe(0);
    const second = await startServer({ DATA_DIR: dataDir });
    try {
      expect((await fetch(`${second.url}/readyz`)).status).toBe(200);
    } finally {
      await second.close();
    }
  });

  it("takes over a lock left by a process that no longer exists", async () => {
    const dataDir = dir();
    const first = await startServer({ DATA_DIR: dataDir });
    expect(await first.stop("SIGKILL")).toBe("SIGKILL");
    const second = await startServer({ DATA_DIR: dataDir });
    try {
      expect((await fetch(`${second.url}/readyz`)).status).toBe(200);
    } finally {
      await second.close();
    }
  });

  it("reports a data folder that cannot be created clearly", async () => {
    const notAFolder = join(dir(), "a-file");
    writeFileSync(notAFolder, "not a folder");
    const { code, lines } = await failsWith({ DATA_DIR: notAFolder, PORT: "0" });
    expect(code).toBe(1);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^Cannot create the data folder/);
  });
});
