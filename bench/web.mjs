// Atelier's web process as `npm start` runs it, for the scenarios that measure a whole server, and its worker processes
// as `npm run worker` runs them: started from the build (scripts/start.mjs), their output kept (the last 8,000
// characters) to show when one does not start, and killed with the scenario's process however that ends.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const running = new Set();
process.on("exit", () => {
  for (const child of running) child.kill("SIGKILL");
});

/** Starts a web process with `env` (and on `port` of `host`, when given). */
export function startWeb(env, { port, host = "127.0.0.1" } = {}) {
  const child = spawn(process.execPath, [join(root, "scripts", "start.mjs")], {
    cwd: root,
    env: port ? { ...env, PORT: String(port), HOST: host } : env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.add(child);
  let output = "";
  const keep = (d) => (output = (output + d.toString()).slice(-8000));
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  const exited = new Promise((resolve) =>
    child.once("exit", (code, signal) => {
      running.delete(child);
      resolve(code ?? signal);
    }),
  );
  return { child, exited, output: () => output, url: port ? `http://${host}:${port}` : undefined };
}

/** Waits until `web` answers 200 on `/readyz` at `base` (at most `timeoutMs`); fails with its output if it exits. */
export async function waitReady(base, web, timeoutMs = 180_000) {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (web.child.exitCode !== null) throw new Error(`Atelier exited before it was ready\n${web.output()}`);
    const ok = await fetch(`${base}/readyz`, { signal: AbortSignal.timeout(5_000) })
      .then((r) => r.ok)
      .catch(() => false);
    if (ok) return;
    await sleep(50);
  }
  throw new Error(`Atelier was not ready within ${timeoutMs} ms\n${web.output()}`);
}

/** A worker process (`npm run worker`) with `env`; `started` resolves once its queues are subscribed. */
export function startWorker(env) {
  const child = spawn(process.execPath, [join(root, "scripts", "start.mjs"), "worker"], {
    cwd: root,
    env: { ...env, LOG_LEVEL: "info" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.add(child);
  child.once("exit", () => running.delete(child));
  let output = "";
  const keep = (d) => (output = (output + d.toString()).slice(-8000));
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  const started = new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      if (output.includes("worker started")) {
        clearInterval(timer);
        resolve();
      }
    }, 20);
    child.once("exit", (code) => {
      clearInterval(timer);
      reject(new Error(`a worker exited with ${code}\n${output}`));
    });
  });
  return { child, started, output: () => output };
}

/** SIGTERM, then SIGKILL after 30 s. */
export async function stopWorker(worker) {
  if (worker.child.exitCode !== null) return;
  const exited = new Promise((resolve) => worker.child.once("exit", resolve));
  worker.child.kill("SIGTERM");
  await Promise.race([exited, sleep(30_000).then(() => worker.child.kill("SIGKILL"))]);
}
