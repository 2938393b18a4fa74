import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Env } from "#server/env.ts";
import type { Runtime } from "#server/runtime.ts";
import { AppError } from "#server/errors.ts";
import { bearerCheck } from "#server/http/bearer-check.ts";
import { serverT } from "#server/i18n/translations.ts";
import { readiness } from "#server/http/readiness.ts";
import { registry } from "#server/metrics.ts";
import { DEFAULT_LOCALE } from "#common/locales.ts";

/** What the probes of a standalone worker look at: its runtime once open, and whether it is stopping. */
export interface WorkerProbeState {
  runtime?: Runtime;
  stopping: boolean;
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { "Content-Type": "application/json", "Cache-Control": "no-store", ...headers });
  res.end(JSON.stringify(body));
}

function error(res: ServerResponse, appError: AppError, headers: Record<string, string> = {}) {
  const t = serverT(DEFAULT_LOCALE, ["common", "messages"]);
  json(res, appError.status, { error: { code: appError.code, message: t(appError.messageKey) } }, headers);
}

/**
 * A standalone worker's own small HTTP server (`WORKER_METRICS_PORT`): `/metrics` (with the web's `METRICS_TOKEN`
 * rule), `/healthz` and `/readyz` answered as the web process answers them, and nothing else.
 */
export function createWorkerMetricsServer(env: Env, state: WorkerProbeState): Server {
  const metricsAllowed = bearerCheck(env.METRICS_TOKEN);
  const healthy = JSON.stringify({ status: "ok" });

  async function ready(res: ServerResponse) {
    const { ok, status, checks } = await readiness(state.runtime, state.stopping);
    json(res, ok ? 200 : 503, { status, checks });
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const path = (req.url ?? "/").split("?")[0];
    if (req.method !== "GET" && req.method !== "HEAD") return error(res, new AppError("not_found"));
    if (path === "/healthz") {
      res.writeHead(200, { "Content-Type": "application/json", "Cache-Control": "no-store" });
      return res.end(healthy);
    }
    if (path === "/readyz") return ready(res);
    if (path === "/metrics") {
      if (!metricsAllowed(req.headers.authorization))
        return error(res, new AppError("unauthorized"), { "WWW-Authenticate": 'Bearer realm="metrics"' });
      const body = await registry.metrics();
      res.writeHead(200, { "Content-Type": registry.contentType, "Cache-Control": "no-store" });
      return res.end(body);
    }
    error(res, new AppError("not_found"));
  }

  const server = createServer({ requestTimeout: 10_000, headersTimeout: 5_000 }, (req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) error(res, new AppError("internal_error"));
      else res.destroy();
    });
  });
  return server;
}
