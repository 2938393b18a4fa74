// What checking an API key costs a request: the SHA-256 of the secret alone, then the one statement that verifies
// the key, counts the request and moves its rate-limit window (`verifyApiKey`) — one caller at a time (latency),
// and 50 at once on one key (its row is the hot spot) and on 50 keys. On PGlite, then on PostgreSQL when a server
// can be had. Prints one JSON object on stdout; `bench/run.mjs` runs it and puts it in the report.
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import pino from "pino";
import { onBothDatabases } from "./postgres.mjs";
import { user } from "../server/db/schema/index.ts";
import { createApiKey } from "../server/modules/api-keys/create-api-key.ts";
import { generateApiKey, hashApiKey } from "../server/modules/api-keys/keys.ts";
import { verifyApiKey } from "../server/modules/api-keys/verify-api-key.ts";

const CLIENTS = 50;
const DURATION_MS = 3_000;
const WARMUP_MS = 500;
const LIMIT = 1_000_000_000;
const logger = pino({ level: "silent" });

const percentile = (sorted, p) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] : null;
const round = (n, d = 3) => (n === null ? null : Math.round(n * 10 ** d) / 10 ** d);

function hashCost() {
  const secrets = Array.from({ length: 1000 }, generateApiKey);
  for (const s of secrets) hashApiKey(s);
  const rounds = 50;
  const t0 = performance.now();
  for (let r = 0; r < rounds; r++) for (const s of secrets) hashApiKey(s);
  return round(((performance.now() - t0) * 1000) / (rounds * secrets.length), 2);
}

async function newKey(db) {
  const id = randomUUID();
  await db.insert(user).values({ id, name: "Bench", email: `${id}@bench.invalid`, emailVerified: true });
  return (await createApiKey({ db, userId: id, input: {} })).secret;
}

/** `clients` callers verifying in a loop for the duration, each with its key (or all with the first). */
async function load(db, keys, clients) {
  const latencies = [];
  let errors = 0;
  const measureFrom = performance.now() + WARMUP_MS;
  const end = measureFrom + DURATION_MS;
  await Promise.all(
    Array.from({ length: clients }, async (_, i) => {
      const secret = keys[i % keys.length];
      while (performance.now() < end) {
        const t0 = performance.now();
        try {
          const verified = await verifyApiKey({ db, secret, limits: { perKey: LIMIT, perAccount: LIMIT } });
          if (!verified.allowed) errors++;
          else if (t0 >= measureFrom) latencies.push(performance.now() - t0);
        } catch {
          errors++;
        }
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  return {
    perSecond: round(latencies.length / (DURATION_MS / 1000), 1),
    p50Ms: round(percentile(latencies, 0.5)),
    p99Ms: round(percentile(latencies, 0.99)),
    errors,
  };
}

async function measure(handle) {
  const keys = [];
  for (let i = 0; i < CLIENTS; i++) keys.push(await newKey(handle.db));
  return {
    // Through the connections the server counts with (decision 023)
    sequential: await load(handle.counters, keys.slice(0, 1), 1),
    oneKey50: await load(handle.counters, keys.slice(0, 1), CLIENTS),
    ownKeys50: await load(handle.counters, keys, CLIENTS),
  };
}

const report = {
  clients: CLIENTS,
  durationSeconds: DURATION_MS / 1000,
  hashMicroseconds: hashCost(),
  pglite: null,
  postgres: null,
};

Object.assign(report, await onBothDatabases(measure, { poolMax: CLIENTS, logger, prefix: "atelier-bench-keys-" }));

process.stdout.write(`${JSON.stringify(report)}\n`);
process.exit(0);
