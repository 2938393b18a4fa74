import type { Logger } from "pino";
import type { Env } from "#server/env.ts";
import type { Runtime } from "#server/runtime.ts";
import { createWorkerMetricsServer, type WorkerProbeState } from "#server/jobs/metrics-server.ts";

/**
 * Starts a standalone worker's metrics and health server when `WORKER_METRICS_PORT` is set, before the database is
 * opened (so /readyz says `starting` meanwhile, and a port in use stops the worker at once with one plain line).
 */
export async function listenForProbes(env: Env, logger: Logger) {
  if (env.WORKER_METRICS_PORT === undefined) return null;
  const port = env.WORKER_METRICS_PORT;
  const state: WorkerProbeState = { stopping: false };
  const server = createWorkerMetricsServer(env, state);
  await new Promise<void>((resolve) => {
    server.once("error", (error: NodeJS.ErrnoException) => {
      const message =
        error.code === "EADDRINUSE"
          ? `Port ${port} on ${env.HOST} is already in use; stop the other server or set WORKER_METRICS_PORT.`
          : error.code === "EACCES"
            ? `No permission to listen on port ${port}; choose a port above 1023 with WORKER_METRICS_PORT.`
            : `Cannot listen on ${env.HOST}:${port}: ${error.message}`;
      logger.flush?.();
      process.stderr.write(`${message}\n`);
      process.exit(1);
    });
    server.listen(port, env.HOST, () => resolve());
  });
  const address = server.address();
  logger.info(
    { port: typeof address === "object" && address ? address.port : port, host: env.HOST },
    "worker metrics listening",
  );
  return {
    opened(runtime: Runtime) {
      state.runtime = runtime;
    },
    /** /readyz answers 503 `draining` from now on, while running jobs finish. */
    stopping() {
      state.stopping = true;
    },
    close() {
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
