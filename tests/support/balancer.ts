// A small load balancer and a steady load through it, as the scale-out test and the benchmark's rolling restart use
// them. Plain TypeScript with relative imports only, so that the benchmark (plain Node) can import it too.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";

/** Headers that belong to one connection, or that `fetch` has already acted on (it decodes the body). */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "transfer-encoding",
  "content-length",
  "content-encoding",
  "upgrade",
  "proxy-connection",
]);

export interface BalancerStats {
  /** Requests a backend answered, by status. */
  byStatus: Record<string, number>;
  /** Requests forwarded to a backend that failed on the way (refused, reset, closed before the answer). */
  cut: number;
  /** Requests that came while no backend was ready. */
  noBackend: number;
  /** Answers per backend. */
  byBackend: Record<string, number>;
  /** The first few errors of cut requests, to tell what happened. */
  errors: string[];
}

export interface Balancer {
  url: string;
  stats: BalancerStats;
  /** The backends whose last readiness check answered 200. */
  ready(): string[];
  close(): Promise<void>;
}

/**
 * Forwards each request to the next ready backend, round-robin, with no retry. Every `checkIntervalMs` it asks each
 * backend's `/readyz` and routes only to those that answered 200, the way a load balancer's health check does.
 */
export async function startBalancer(
  backends: string[],
  { checkIntervalMs = 200, checkTimeoutMs = 3_000 }: { checkIntervalMs?: number; checkTimeoutMs?: number } = {},
): Promise<Balancer> {
  const stats: BalancerStats = { byStatus: {}, cut: 0, noBackend: 0, byBackend: {}, errors: [] };
  const isReady = new Map<string, boolean>(backends.map((b) => [b, false]));
  const checking = new Set<string>();
  let next = 0;

  const check = async (backend: string) => {
    if (checking.has(backend)) return;
    checking.add(backend);
    try {
      const res = await fetch(`${backend}/readyz`, { signal: AbortSignal.timeout(checkTimeoutMs) });
      await res.arrayBuffer();
      isReady.set(backend, res.status === 200);
    } catch {
      isReady.set(backend, false);
    } finally {
      checking.delete(backend);
    }
  };
  const checkAll = () => Promise.all(backends.map(check));
  await checkAll();
  const timer = setInterval(() => void checkAll(), checkIntervalMs);

  const forward = async (req: IncomingMessage, res: ServerResponse) => {
    const ready = backends.filter((b) => isReady.get(b));
    if (ready.length === 0) {
      stats.noBackend++;
      res.writeHead(503, { "Content-Type": "text/plain" }).end("no backend ready");
      return;
    }
    const backend = ready[next++ % ready.length]!;
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined || HOP_BY_HOP.has(name) || name === "host") continue;
      for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
    }
    const body =
      req.method === "GET" || req.method === "HEAD"
        ? undefined
        : await new Promise<Buffer>((resolve, reject) => {
            const chunks: Buffer[] = [];
            req.on("data", (c: Buffer) => chunks.push(c));
            req.on("end", () => resolve(Buffer.concat(chunks)));
            req.on("error", reject);
          });
    let answer: Response;
    let payload: Buffer;
    try {
      answer = await fetch(`${backend}${req.url ?? "/"}`, {
        method: req.method,
        headers,
        body: body ? new Uint8Array(body) : undefined,
        redirect: "manual",
      });
      payload = Buffer.from(await answer.arrayBuffer());
    } catch (error) {
      stats.cut++;
      if (stats.errors.length < 10) {
        const cause = (error as { cause?: { code?: string; message?: string } }).cause;
        stats.errors.push(`${backend}${req.url}: ${cause?.code ?? cause?.message ?? String(error)}`);
      }
      res.writeHead(502, { "Content-Type": "text/plain" }).end("backend failed");
      return;
    }
    stats.byStatus[answer.status] = (stats.byStatus[answer.status] ?? 0) + 1;
    stats.byBackend[backend] = (stats.byBackend[backend] ?? 0) + 1;
    const out: Record<string, string | string[]> = {};
    for (const [name, value] of answer.headers) if (!HOP_BY_HOP.has(name) && name !== "set-cookie") out[name] = value;
    const cookies = answer.headers.getSetCookie();
    if (cookies.length) out["set-cookie"] = cookies;
    res.writeHead(answer.status, out).end(payload);
  };

  const server: Server = createServer((req, res) => void forward(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    stats,
    ready: () => backends.filter((b) => isReady.get(b)),
    async close() {
      clearInterval(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface LoadResult {
  requests: number;
  byStatus: Record<string, number>;
  /** Requests that got no answer at all. */
  failed: number;
}

/**
 * `concurrency` loops that each ask for the next of `paths` through `url` again as soon as the last answer came,
 * until `stop()`; `stop()` waits for the requests under way and returns the count of every answer.
 */
export function steadyLoad(url: string, paths: string[], concurrency = 4) {
  const result: LoadResult = { requests: 0, byStatus: {}, failed: 0 };
  let running = true;
  let n = 0;
  const loop = async () => {
    while (running) {
      const path = paths[n++ % paths.length]!;
      result.requests++;
      try {
        const res = await fetch(`${url}${path}`, { redirect: "manual" });
        await res.arrayBuffer();
        result.byStatus[res.status] = (result.byStatus[res.status] ?? 0) + 1;
      } catch {
        result.failed++;
      }
    }
  };
  const loops = Array.from({ length: concurrency }, loop);
  return {
    result,
    async stop() {
      running = false;
      await Promise.all(loops);
      return result;
    },
  };
}
