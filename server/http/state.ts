import type { Runtime } from "#server/runtime.ts";

/** Mutable process state the HTTP layer reads: the runtime appears once the database is ready. */
export interface ServerState {
  runtime?: Runtime;
  /** Shutting down: `/readyz` answers 503 `draining` and every answer asks its client to close the connection. */
  draining: boolean;
  /**
   * Past the pre-stop delay: the port accepts no more connections, and a request arriving on one still open gets 503
   * with `Retry-After` while the requests in flight finish.
   */
  closed?: boolean;
}
