import type { Context, MiddlewareHandler } from "hono";
import { AppError } from "#server/errors.ts";
import { errorResponse } from "#server/http/api-error.ts";
import type { AppEnv } from "#server/http/request-context.ts";
import { recordShed } from "#server/metrics.ts";

/** Seconds a refused client is asked to wait before it comes back. */
export const BUSY_RETRY_AFTER_SECONDS = 2;

interface Waiter {
  since: number;
  resolve: (admitted: boolean) => void;
  timer: NodeJS.Timeout;
}

/**
 * Admission of the requests that make this process work (a page rendered, an API call): at most `maxConcurrent` are
 * worked at once and the next ones wait their turn, first come first served, for at most `maxWaitMs`. A request whose
 * turn would come later than that, by the rate at which requests have been finishing, is refused at once rather
 * than after waiting; one still waiting when its time is up is refused then. Refused requests get 503 with
 * `Retry-After` before anything of theirs is done, so nothing is lost and the requests that are served keep their
 * pace: Node works every request it has started in turns on one thread, so without a bound each new request slows
 * all the others, and past the process's capacity the time of every request grows without limit.
 */
export class Admission {
  readonly maxConcurrent: number;
  readonly maxWaitMs: number;
  private working = 0;
  private readonly queue: Waiter[] = [];
  // Requests finished per millisecond, a moving average over about a second; and when it was last brought up to date.
  private rate = 0;
  private finishedSince = 0;
  private rateAt = 0;

  constructor({ maxConcurrent, maxWaitMs }: { maxConcurrent: number; maxWaitMs: number }) {
    this.maxConcurrent = maxConcurrent;
    this.maxWaitMs = maxWaitMs;
  }

  get inProgress(): number {
    return this.working;
  }

  get waiting(): number {
    return this.queue.length;
  }

  /** `true` once the request may be worked (then `leave()` must follow), `false` if it is refused. */
  enter(now = performance.now()): boolean | Promise<boolean> {
    if (this.working < this.maxConcurrent && this.queue.length === 0) {
      this.working++;
      return true;
    }
    // Its turn comes after those waiting now: refused at once when that is later than the longest wait allowed.
    const rate = this.currentRate(now);
    if (rate > 0 && (this.queue.length + 1) / rate > this.maxWaitMs) return false;
    return new Promise<boolean>((resolve) => {
      const waiter: Waiter = {
        since: now,
        resolve,
        timer: setTimeout(() => {
          const at = this.queue.indexOf(waiter);
          if (at >= 0) this.queue.splice(at, 1);
          resolve(false);
        }, this.maxWaitMs),
      };
      this.queue.push(waiter);
    });
  }

  /** A request admitted by `enter()` is done: the next one waiting, if any, takes its place. */
  leave(now = performance.now()): void {
    this.finishedSince++;
    this.currentRate(now);
    const next = this.queue.shift();
    if (next) {
      clearTimeout(next.timer);
      next.resolve(true);
    } else {
      this.working--;
    }
  }

  private currentRate(now: number): number {
    const elapsed = now - this.rateAt;
    if (elapsed >= 100) {
      // An exponential average with a time constant of one second, fed in steps of at least 100 ms.
      const weight = Math.min(1, elapsed / 1000);
      this.rate = this.rate * (1 - weight) + (this.finishedSince / elapsed) * weight;
      this.finishedSince = 0;
      this.rateAt = now;
    }
    return this.rate;
  }
}

/**
 * The middleware form: a request that `exempt` does not name waits for its turn; a refused one is answered by
 * `refuse` (a JSON error by default), and counted in `http_requests_shed_total`.
 */
export function admit<E extends AppEnv>(
  admission: Admission | undefined,
  {
    exempt,
    refuse = busyJson,
  }: { exempt?: (c: Context<E>) => boolean; refuse?: (c: Context<E>) => Response | Promise<Response> } = {},
): MiddlewareHandler<E> {
  if (!admission) return (_c, next) => next();
  return async (c, next) => {
    if (exempt?.(c)) return next();
    const entered = admission.enter();
    if (entered !== true && !(await entered)) {
      recordShed();
      c.set("expectedFailure", true);
      return refuse(c);
    }
    try {
      await next();
    } finally {
      admission.leave();
    }
  };
}

/** An API's refusal while the process is busy: `service_unavailable` with the busy message, to be tried again. */
export function busyJson<E extends AppEnv>(c: Context<E>): Response {
  return errorResponse(c, new AppError("service_unavailable", "busy", { key: "error.busy" }), {
    "Retry-After": String(BUSY_RETRY_AFTER_SECONDS),
  });
}
