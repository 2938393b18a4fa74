import { loadEnvOrExit } from "#server/env.ts";
import { createLogger } from "#server/logger.ts";
import { openRuntime } from "#server/runtime.ts";
import { DatabaseStartError, survivingLostConnections } from "#server/db/errors.ts";
import { listenForProbes } from "#server/jobs/probes.ts";

/** A standalone worker process: works the queues with no HTTP server. Scale out by running several. */
export async function runWorker() {
  const env = loadEnvOrExit();
  const logger = createLogger(env).child({ role: "worker" });
  survivingLostConnections(logger);
  if (!env.DATABASE_URL) {
    process.stderr.write(
      "A standalone worker needs DATABASE_URL (PostgreSQL): the embedded database serves one process, where the web server's own worker runs the jobs.\n",
    );
    process.exit(1);
  }
  const probes = await listenForProbes(env, logger);
  let runtime;
  try {
    runtime = await openRuntime({ env, logger, work: true, role: "worker" });
  } catch (error) {
    if (error instanceof DatabaseStartError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const ready = runtime;
  probes?.opened(ready);
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    probes?.stopping();
    // pg-boss's graceful stop fetches no new job from this moment and gives the running ones the time allowed.
    logger.info(
      { signal, timeoutSeconds: env.SHUTDOWN_TIMEOUT_SECONDS },
      "worker stopping: fetching no new jobs, letting running ones finish",
    );
    await ready.close();
    await probes?.close();
    logger.info("worker stopped");
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
}
