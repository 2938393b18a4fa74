import { spawn, type ChildProcess } from "node:child_process";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { inject } from "vitest";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** A free TCP port on loopback. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const address = srv.address();
      const port = typeof address === "object" && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

export function tempDir(prefix = "atelier-test-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/**
 * A data folder for a server of the run: a copy of the run's migrated template (see templates.ts) when the suite
 * has one, so that the server starts in half the time a fresh database and its migrations take; empty otherwise.
 */
export function serverDataDir(prefix?: string): string {
  const dir = tempDir(prefix);
  let template: string | undefined;
  try {
    template = inject("pgliteTemplate");
  } catch {
    // Outside a test file (the suites' set-up): no template.
  }
  if (template) cpSync(template, dir, { recursive: true });
  return dir;
}

export interface RunningProcess {
  proc: ChildProcess;
  output(): string;
  /** Resolves with the exit code (or the signal's name) once the process has exited. */
  exited: Promise<number | string>;
  stop(signal?: NodeJS.Signals): Promise<number | string>;
}

/**
 * A redemption code made with the admin command line in `dataDir` before the site starts there (the command line
 * owns the embedded database while it runs).
 */
export async function codeMadeBeforeStart(dataDir: string, credits: number): Promise<string> {
  const created = runRole("admin", { DATA_DIR: dataDir }, ["codes", "create", "--credits", String(credits)]);
  const exit = await created.exited;
  if (exit !== 0) throw new Error(`creating a code exited with ${exit}:\n${created.output()}`);
  return /ATL-[\w-]+/.exec(created.output())![0];
}

/** Runs one of the server's roles (`web`, `worker`, `migrate`, `admin` with its arguments) from the build, as `npm start` would. */
export function runRole(
  role: "web" | "worker" | "migrate" | "admin",
  env: Record<string, string | undefined>,
  args: string[] = [],
): RunningProcess {
  const proc = spawn(process.execPath, [join(ROOT, "scripts/start.mjs"), role, ...args], {
    cwd: ROOT,
    // No pre-stop delay unless a test asks for one: stopping a server then takes no longer than its requests.
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      LOG_LEVEL: "info",
      SHUTDOWN_DELAY_SECONDS: "0",
      IMAGE_CLASSIFIER: "off",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  proc.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  proc.stderr!.on("data", (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | string>((resolve) =>
    proc.once("exit", (code, signal) => resolve(code ?? signal ?? "unknown")),
  );
  return {
    proc,
    output: () => out,
    exited,
    async stop(signal = "SIGTERM") {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      const timer = setTimeout(() => proc.kill("SIGKILL"), 30_000);
      const result = await exited;
      clearTimeout(timer);
      return result;
    },
  };
}

/** Polls until `check` passes; bounded in time, with a clear message and the process output when it does not. */
export async function waitFor(
  what: string,
  check: () => Promise<boolean>,
  {
    timeoutMs = 60_000,
    intervalMs = 100,
    output,
  }: { timeoutMs?: number; intervalMs?: number; output?: () => string } = {},
) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  throw new Error(`Timed out waiting for ${what}${output ? `\n--- output ---\n${output()}` : ""}`);
}

export interface TestServer extends RunningProcess {
  url: string;
  port: number;
  dataDir: string;
  close(): Promise<void>;
}

/** The web server on a spare port with a fresh data folder (PGlite) unless DATABASE_URL is given. */
export async function startServer(env: Record<string, string | undefined> = {}, opts: { waitReady?: boolean } = {}) {
  const port = env.PORT ? Number(env.PORT) : await freePort();
  const dataDir = env.DATA_DIR ?? (env.DATABASE_URL ? tempDir() : serverDataDir());
  const running = runRole("web", { PORT: String(port), HOST: "127.0.0.1", DATA_DIR: dataDir, ...env });
  const url = `http://127.0.0.1:${port}`;
  if (opts.waitReady !== false) {
    await waitFor("the server to be ready", async () => (await fetch(`${url}/readyz`)).status === 200, {
      output: running.output,
    });
  } else {
    await waitFor("the server to listen", async () => (await fetch(`${url}/healthz`)).status === 200, {
      output: running.output,
    });
  }
  const server: TestServer = {
    ...running,
    url,
    port,
    dataDir,
    async close() {
      await running.stop();
      if (!env.DATA_DIR) rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return server;
}

/** The PostgreSQL server for this run, when one is configured (CI sets it); PGlite otherwise. */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined;
