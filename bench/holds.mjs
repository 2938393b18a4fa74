// Credit holds per second with 20 concurrent clients, and their latency, on PGlite and (when a PostgreSQL
// server can be had) on PostgreSQL: a throwaway cluster from Debian's postgresql package, or BENCH_DATABASE_URL.
// Prints one JSON object on stdout; `bench/run.mjs` runs it and puts it in the report.
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import pino from "pino";
import { onBothDatabases } from "./postgres.mjs";
import { user } from "../server/db/schema/index.ts";
import { grantCredits, holdCredits } from "../server/modules/credits/ledger.ts";

const CLIENTS = 20;
const DURATION_MS = 5_000;
const WARMUP_MS = 1_000;
const logger = pino({ level: "silent" });

const percentile = (sorted, p) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] : null;
const round = (n, d = 2) => (n === null ? null : Math.round(n * 10 ** d) / 10 ** d);

/** Each client holds 1 credit at a time, as fast as it can, from its own account or all from one. */
async function run(db, { sharedAccount }) {
  const users = [];
  for (let i = 0; i < (sharedAccount ? 1 : CLIENTS); i++) {
    const id = randomUUID();
    await db.insert(user).values({ id, name: "Bench", email: `${id}@bench.invalid`, emailVerified: true });
    await grantCredits({
      db,
      userId: id,
      amount: 1_000_000_000,
      kind: "admin_adjustment",
      idempotencyKey: randomUUID(),
    });
    users.push(id);
  }
  const latencies = [];
  let errors = 0;
  const started = performance.now();
  const measureFrom = started + WARMUP_MS;
  const end = measureFrom + DURATION_MS;
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, i) => {
      const userId = users[sharedAccount ? 0 : i];
      while (performance.now() < end) {
        const t0 = performance.now();
        try {
          await holdCredits({ db, userId, amount: 1, idempotencyKey: randomUUID() });
          if (t0 >= measureFrom) latencies.push(performance.now() - t0);
        } catch {
          errors++;
        }
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  return {
    holdsPerSecond: round(latencies.length / (DURATION_MS / 1000), 1),
    latencyMs: { p50: round(percentile(latencies, 0.5)), p99: round(percentile(latencies, 0.99)) },
    errors,
  };
}

async function measure(handle) {
  return {
    separateAccounts: await run(handle.db, { sharedAccount: false }),
    oneAccount: await run(handle.db, { sharedAccount: true }),
  };
}

const report = { clients: CLIENTS, durationSeconds: DURATION_MS / 1000, pglite: null, postgres: null };

Object.assign(report, await onBothDatabases(measure, { poolMax: CLIENTS, logger, prefix: "atelier-bench-pglite-" }));

process.stdout.write(`${JSON.stringify(report)}\n`);
process.exit(0);
