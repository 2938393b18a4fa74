// The console's queries on a large database, on PGlite and (when a PostgreSQL server can be had) on PostgreSQL:
// 10,000 accounts and 100,000 generations spread over 120 days, with their ledger (about 220,000 entries), 5,000
// paid orders and their refunds and disputes. Times the overview for each period, the models page's figures and a
// user search. Prints one JSON object on stdout; `bench/run.mjs` runs it and puts it in the report.
import { performance } from "node:perf_hooks";
import pino from "pino";
import { sql } from "drizzle-orm";
import { onBothDatabases } from "./postgres.mjs";
import { businessOverview } from "../server/modules/overview/business-figures.ts";
import { modelStats } from "../server/modules/generation/model-stats.ts";
import { searchUsers, userSearchSchema } from "../server/modules/users/search-users.ts";
import { PERIODS, periodStart } from "../common/admin.ts";

const USERS = 10_000;
const GENERATIONS = 100_000;
const ORDERS = 5_000;
const DAYS = 120;
const RUNS = 7;
const logger = pino({ level: "silent" });

const round = (n, d = 1) => Math.round(n * 10 ** d) / 10 ** d;

/** Fills the database with set-based inserts; times are spread evenly (and deterministically) over the days. */
export async function seed(db) {
  const minutes = DAYS * 24 * 60;
  await db.execute(sql`
    insert into "user" (id, name, email, email_verified, created_at)
    select 'bench-u-' || i, 'Bench maker ' || i, 'maker-' || i || '@bench.invalid', true,
           now() - ((i * 7919) % ${minutes}) * interval '1 minute'
    from generate_series(1, ${USERS}) i`);
  await db.execute(sql`
    insert into credit_balance (user_id, balance) select 'bench-u-' || i, 1000 from generate_series(1, ${USERS}) i`);
  await db.execute(sql`
    insert into generation (user_id, kind, tool, model_id, prompt, params, status, credits_held, credits_charged,
                            timeout_seconds, created_at, finished_at, duration_ms)
    select 'bench-u-' || (1 + (i * 31) % ${USERS}), 'image', 'text-to-image',
           (array['demo-image', 'flux-schnell', 'flux-dev', 'sdxl', 'gpt-image-1'])[1 + i % 5], 'a lighthouse at dusk',
           '{"aspectRatio": "1:1", "count": 1}'::jsonb,
           case when i % 20 = 0 then 'failed' when i % 499 = 0 then 'queued' when i % 53 = 0 then 'canceled'
                else 'succeeded' end,
           5, case when i % 20 = 0 or i % 499 = 0 or i % 53 = 0 then null else 5 end, 600, t, t + interval '8 seconds',
           8000 + (i % 7) * 1000
    from generate_series(1, ${GENERATIONS}) i, lateral (select now() - ((i * 13) % ${minutes}) * interval '1 minute' as t) s`);
  await db.execute(sql`
    insert into credit_entry (user_id, kind, amount, held_change, balance_after, reference, idempotency_key, created_at)
    select g.user_id, k.kind, k.amount, k.held, 1000, 'job:' || g.id, k.kind || ':' || g.id, g.created_at
    from generation g,
         lateral (values ('hold', 0, 5), ('capture', -5, -5)) k(kind, amount, held)`);
  await db.execute(sql`
    insert into credit_entry (user_id, kind, amount, balance_after, idempotency_key, created_at)
    select id, 'signup_bonus', 50, 50, 'bonus:' || id, created_at from "user" where id like 'bench-u-%'`);
  await db.execute(sql`
    insert into credit_order (user_id, pack_id, credits, amount, currency, status, request_key, paid_at, refunded_amount,
                              disputed_at, dispute_status, dispute_id)
    select 'bench-u-' || (1 + (i * 17) % ${USERS}), 'starter', 500, case when i % 3 = 0 then 900 else 1000 end,
           case when i % 3 = 0 then 'eur' else 'usd' end,
           case when i % 50 = 0 then 'refunded' else 'paid' end, 'bench-' || i, t,
           case when i % 50 = 0 then 1000 else 0 end,
           case when i % 97 = 0 then t + interval '3 days' end,
           case when i % 97 = 0 then 'lost' end,
           case when i % 97 = 0 then 'dp_' || i end
    from generate_series(1, ${ORDERS}) i, lateral (select now() - ((i * 11) % ${minutes}) * interval '1 minute' as t) s`);
  await db.execute(sql`
    insert into credit_entry (user_id, kind, amount, balance_after, reference, idempotency_key, created_at)
    select user_id, 'purchase', credits, 1000, 'order:' || id, 'purchase:' || id, paid_at from credit_order`);
  await db.execute(sql`
    insert into payment_event (id, provider, type, order_id, created_at)
    select 'evt_paid_' || id, 'stripe', 'checkout.session.completed', id, paid_at from credit_order`);
  await db.execute(sql`
    insert into payment_event (id, provider, type, order_id, created_at)
    select 'evt_refund_' || id, 'stripe', 'charge.refunded', id, paid_at + interval '1 day' from credit_order
    where status = 'refunded'`);
  await db.execute(sql`analyze`);
}

async function timed(fn) {
  const times = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  // The first run warms the caches; the rest are measured.
  const measured = times.slice(1).sort((a, b) => a - b);
  return { p50Ms: round(measured[Math.floor(measured.length / 2)]), maxMs: round(measured.at(-1)) };
}

async function measure(handle) {
  const t0 = performance.now();
  await seed(handle.db);
  const seedSeconds = round((performance.now() - t0) / 1000);
  const db = handle.db;
  const now = new Date();
  const overview = {};
  for (const period of PERIODS)
    overview[period] = await timed(() => businessOverview({ db, from: periodStart(period, now), to: now }));
  return {
    seedSeconds,
    overview,
    models90d: await timed(() => modelStats({ db, since: periodStart("90d", now) })),
    userSearch: await timed(() =>
      searchUsers({ db, search: userSearchSchema.parse({ q: "maker-4242" }), page: 1, pageSize: 20 }),
    ),
  };
}

if (import.meta.main) {
  const report = { users: USERS, generations: GENERATIONS, orders: ORDERS, days: DAYS, pglite: null, postgres: null };
  Object.assign(report, await onBothDatabases(measure, { poolMax: 10, logger, prefix: "atelier-bench-overview-" }));
  process.stdout.write(`${JSON.stringify(report)}\n`);
  process.exit(0);
}
