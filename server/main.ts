import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { createAdaptorServer, getRequestListener } from "@hono/node-server";
import type { ServerBuild } from "react-router";
import type { Logger } from "pino";
import { loadEnvOrExit, type Env } from "#server/env.ts";
import { createLogger } from "#server/logger.ts";
import { createApp } from "#server/http/app.ts";
import { limitConnectionsPerAddress, serverTimeouts } from "#server/http/connections.ts";
import type { ServerState } from "#server/http/state.ts";
import { openRuntime } from "#server/runtime.ts";
import { readBuildInfo } from "#server/build-info.ts";
import { DatabaseStartError, survivingLostConnections } from "#server/db/errors.ts";
import { listenForAdminCommands, type AdminSocket } from "#server/admin/socket.ts";

type Middleware = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;

export interface StartOptions {
  getServerBuild?: () => Promise<ServerBuild>;
  /** Vite's middlewares in development: assets and hot reload before the app. */
  devMiddleware?: Middleware;
}

/** The address to open in a browser on this machine: `localhost` for a server listening on every interface. */
function localAddress(host: string, port: number): string {
  const name = host === "0.0.0.0" || host === "::" ? "localhost" : host.includes(":") ? `[${host}]` : host;
  return `http://${name}:${port}`;
}

/** Start-up problems the operator must fix: one plain line on stderr, exit code 1. */
function fail(logger: Logger, message: string): never {
  logger.flush?.();
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

/**
 * The web process: listens first (so /healthz answers and /readyz says 503 while the database comes up),
 * then opens the database, migrates, seeds and starts the queue, then serves pages.
 */
export async function start(options: StartOptions = {}) {
  const env: Env = loadEnvOrExit();
  const logger = createLogger(env);
  survivingLostConnections(logger);
  const state: ServerState = { draining: false };
  const build = readBuildInfo();
  const getServerBuild =
    options.getServerBuild ?? (() => import("virtual:react-router/server-build") as Promise<ServerBuild>);

  const appOptions = { logger, state, build, getServerBuild, serveAssets: !options.devMiddleware };
  // Made again once the runtime is open if this process takes its site URL from the database (shared settings).
  let app = createApp({ env, ...appOptions });
  const answer: typeof app.fetch = (request, bindings, context) => app.fetch(request, bindings, context);
  const listener = getRequestListener(answer);
  const dev = options.devMiddleware;
  const server = createAdaptorServer({
    fetch: answer,
    serverOptions: serverTimeouts(env),
  }) as Server;
  if (!env.CLIENT_IP_HEADER) limitConnectionsPerAddress(server, env.MAX_CONNECTIONS_PER_ADDRESS);
  if (dev) {
    server.removeAllListeners("request");
    server.on("request", (req: IncomingMessage, res: ServerResponse) => dev(req, res, () => void listener(req, res)));
  }

  await new Promise<void>((resolve) => {
    server.once("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "EADDRINUSE")
        fail(logger, `Port ${env.PORT} on ${env.HOST} is already in use; stop the other server or set PORT.`);
      if (error.code === "EACCES")
        fail(logger, `No permission to listen on port ${env.PORT}; choose a port above 1023 with PORT.`);
      fail(logger, `Cannot listen on ${env.HOST}:${env.PORT}: ${error.message}`);
    });
    server.listen(env.PORT, env.HOST, () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : env.PORT;
  logger.info({ port, host: env.HOST, build: build.id }, "listening");

  // Once idle connections are closed, those left open each carry a request being answered: what the shutdown waits
  // for and reports, counted then rather than on every request.
  const openConnections = () =>
    new Promise<number>((resolve) => server.getConnections((error, count) => resolve(error ? 0 : count)));

  let shuttingDown = false;
  let adminSocket: AdminSocket | null = null;
  let endDelay: (() => void) | undefined;
  const shutdown = async (signal: NodeJS.Signals) => {
    if (shuttingDown) {
      // A second signal (Ctrl-C again) does not wait for the rest of the delay.
      endDelay?.();
      return;
    }
    shuttingDown = true;
    // A load balancer learns from /readyz that this process is going while it still serves what it is sent, and every
    // answer from now on closes its connection; Ctrl-C in a terminal has no load balancer to wait for.
    state.draining = true;
    const delaySeconds = signal === "SIGTERM" ? env.SHUTDOWN_DELAY_SECONDS : 0;
    logger.info({ signal, delaySeconds }, "draining: /readyz answers 503, serving until the delay ends");
    if (delaySeconds > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delaySeconds * 1000);
        endDelay = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    state.closed = true;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    logger.info({ inFlight: await openConnections() }, "stopped accepting connections; finishing requests in flight");
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<true>((resolve) => {
      timer = setTimeout(() => resolve(true), env.SHUTDOWN_TIMEOUT_SECONDS * 1000);
    });
    if (await Promise.race([closed.then(() => false), timedOut])) {
      logger.warn({ cut: await openConnections() }, "shutdown timed out; cutting the requests still in flight");
      server.closeAllConnections();
      await closed;
    }
    clearTimeout(timer);
    await adminSocket?.close();
    await state.runtime?.close();
    logger.info("stopped");
    logger.flush?.();
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));

  try {
    const runtime = await openRuntime({ env, logger, work: env.WORKER === "on", role: "web" });
    if (runtime.env.SITE_URL !== env.SITE_URL) app = createApp({ env: runtime.env, ...appOptions });
    // Load the page modules now rather than on the first visitor's request.
    await getServerBuild();
    state.runtime = runtime;
  } catch (error) {
    if (error instanceof DatabaseStartError) fail(logger, error.message);
    throw error;
  }
  if (shuttingDown) return;
  const runtime = state.runtime;
  // The embedded database serves this process alone: the command line hands its commands over to it.
  if (runtime.database.kind === "pglite")
    adminSocket = await listenForAdminCommands({
      dataDir: env.DATA_DIR,
      db: runtime.database.db,
      server: runtime.process,
      logger,
      catalog: async () => {
        await runtime.models.refresh();
        return { env: runtime.env, models: runtime.models, secrets: runtime.secrets };
      },
      after: async () => {
        for (const refresh of runtime.afterAdminCommand) await refresh();
      },
    });
  if (shuttingDown) {
    await adminSocket?.close();
    return;
  }
  const url = localAddress(env.HOST, port);
  logger.info({ database: runtime.database.kind, worker: env.WORKER, url }, "ready");
  // The line a person starting the server waits for, plain (the log above is for machines): on stderr, beside the
  // start-up's other plain lines, so that stdout stays one JSON object per line.
  const site = runtime.env.SITE_URL?.replace(/\/$/, "");
  process.stderr.write(`Atelier is ready at ${url}${site && site !== url ? ` (public address ${site})` : ""}\n`);
  return { server, state, port };
}
