import type { Runtime } from "#server/runtime.ts";

/** Mutable process state the HTTP layer reads: the runtime appears once the database is ready. */
export interface ServerState {
  runtime?: Runtime;
  draining: boolean;
}
