// Explore on PostgreSQL at scale: searching prompts in several languages among BENCH_EXPLORE_ROWS public results
// (1,000,000 by default) and listing the three orders, p50/p95 of the use case's own time; then likes per second
// with 50 clients liking different results from different accounts. Prints one JSON object on stdout;
// `bench/run.mjs` runs it and puts it in the report (`npm run bench -- explore` alone).
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { URLSearchParams } from "node:url";
import pino from "pino";
import { sql } from "drizzle-orm";
import { benchDatabase } from "./postgres.mjs";
import { user } from "../server/db/schema/index.ts";
import { throughVite } from "./through-vite.mjs";
import { readExploreQuery } from "../common/explore.ts";

// The listing reads media links from a module that reads the translations through Vite's `import.meta.glob`.
const vite = await throughVite();
const { listExplore } = await vite.load("/server/modules/explore/list-explore.ts");
const { setLike } = await vite.load("/server/modules/explore/set-like.ts");

const ROWS = Number(process.env.BENCH_EXPLORE_ROWS ?? 1_000_000);
const RUNS = 40;
const LIKE_CLIENTS = 50;
const LIKE_MS = 5_000;
const LIKE_WARMUP_MS = 1_000;
const logger = pino({ level: "silent" });

const percentile = (sorted, p) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] : null;
const round = (n, d = 2) => (n === null ? null : Math.round(n * 10 ** d) / 10 ** d);

/**
 * Prompts made of words in seven languages (each row one language, its words drawn at random), so a search finds
 * from a handful to tens of thousands of rows, as on a real site.
 */
const WORDS = {
  en: "lighthouse storm cat moon forest city neon portrait river mountain dragon garden ocean robot castle desert rain night sunset watercolor".split(
    " ",
  ),
  de: "Leuchtturm Sturm Katze Mond Wald Stadt Porträt Fluss Berg Drache Garten Ozean Schloss Wüste Regen Nacht Aquarell".split(
    " ",
  ),
  fr: "phare tempête chat lune forêt ville portrait rivière montagne dragon jardin océan château désert pluie nuit aquarelle".split(
    " ",
  ),
  es: "faro tormenta gato luna bosque ciudad retrato río montaña dragón jardín océano castillo desierto lluvia noche acuarela".split(
    " ",
  ),
  ru: "маяк шторм кошка луна лес город портрет река гора дракон сад океан замок пустыня дождь ночь акварель".split(" "),
  zh: "灯塔 风暴 猫 月亮 森林 城市 霓虹 肖像 河流 山 龙 花园 海洋 机器人 城堡 沙漠 雨 夜晚 水彩".split(" "),
  ja: "灯台 嵐 猫 月 森 街 ネオン 肖像 川 山 竜 庭 海 ロボット 城 砂漠 雨 夜 水彩".split(" "),
};
const QUERIES = [
  ["en", "lighthouse"],
  ["en", "cat moon"],
  ["en", "dragon -castle"],
  ["de", "Leuchtturm"],
  ["de", "Katzen"],
  ["fr", "chat"],
  ["es", "acuarela"],
  ["ru", "кошки"],
  ["zh", "猫"],
  ["zh", "灯塔"],
  ["ja", "ロボット"],
  ["en", "zeppelin"],
];

/** `ROWS` public results (one account, one output each) straight in SQL, in batches. */
async function seed(db) {
  const owner = randomUUID();
  await db.insert(user).values({ id: owner, name: "Bench", email: `${owner}@bench.invalid`, emailVerified: true });
  const langs = Object.keys(WORDS);
  const arrays = langs.map((l) => `array[${WORDS[l].map((w) => `'${w}'`).join(",")}]`);
  const batch = 100_000;
  for (let from = 0; from < ROWS; from += batch) {
    const n = Math.min(batch, ROWS - from);
    await db.execute(
      sql.raw(`
      with made as (
        insert into generation (user_id, kind, tool, model_id, prompt, prompt_lang, params, status, credits_held,
          visibility, timeout_seconds, created_at, finished_at, like_count)
        select '${owner}', 'image', 'text-to-image', 'demo-image', p.prompt, p.lang, '{"aspectRatio":"1:1","count":1}',
          'succeeded', 0, 'public', 60, now() - make_interval(secs => i * 30), now() - make_interval(secs => i * 30),
          (random() * random() * 200)::int
        from generate_series(${from + 1}, ${from + n}) i
        cross join lateral (
          select l.lang, array_to_string(array(select w[1 + floor(random() * array_length(w, 1))::int]
            from generate_series(1, 6 + (i % 5)) k), case when l.lang in ('zh', 'ja') then '' else ' ' end) as prompt
          from (select (array['${langs.join("','")}'])[1 + (i % ${langs.length})] as lang) l
          cross join lateral (select case l.lang ${langs.map((l, j) => `when '${l}' then ${arrays[j]}`).join(" ")} end as w) words
        ) p
        returning id, user_id
      )
      insert into asset (user_id, generation_id, role, kind, mime_type, width, height, size_bytes, checksum, storage_key, thumb_key)
      select user_id, id, 'output', 'image', 'image/png', 512, 512, 1000, 'x', 'bench/' || id, 'bench/' || id || '.webp'
      from made`),
    );
  }
  await db.execute(sql`analyze generation`);
  await db.execute(sql`analyze asset`);
}

async function timeQueries(db) {
  const base = readExploreQuery(new URLSearchParams());
  const measure = async (name, query, locale) => {
    const times = [];
    let found = 0;
    for (let i = 0; i < RUNS; i++) {
      const t0 = performance.now();
      const { items } = await listExplore({ db, query: { ...base, ...query }, locale, viewerId: null });
      times.push(performance.now() - t0);
      found = items.length;
    }
    times.sort((a, b) => a - b);
    return { name, found, p50: round(percentile(times, 0.5)), p95: round(percentile(times, 0.95)) };
  };
  const lists = [];
  for (const sort of ["trending", "newest", "remixed"]) lists.push(await measure(`list ${sort}`, { sort }, "en"));
  lists.push(await measure("list page 50", { page: 50 }, "en"));
  const searches = [];
  for (const [locale, q] of QUERIES) searches.push(await measure(`${locale}: ${q}`, { q }, locale));
  for (const [locale, q] of QUERIES.slice(0, 4))
    searches.push(await measure(`${locale}: ${q} (newest)`, { q, sort: "newest" }, locale));
  const all = searches.flatMap((s) => [s.p95]).sort((a, b) => a - b);
  return { lists, searches, searchP95WorstMs: all.at(-1) };
}

async function timeLikes(db) {
  const [{ n }] = (await db.execute(sql`select count(*)::int as n from generation`)).rows;
  const ids = (await db.execute(sql`select id from generation order by random() limit 20000`)).rows.map((r) => r.id);
  const fans = [];
  for (let i = 0; i < LIKE_CLIENTS; i++) {
    const id = randomUUID();
    await db.insert(user).values({ id, name: "Fan", email: `${id}@bench.invalid`, emailVerified: true });
    fans.push(id);
  }
  const latencies = [];
  let errors = 0;
  const started = performance.now();
  const measureFrom = started + LIKE_WARMUP_MS;
  const end = measureFrom + LIKE_MS;
  await Promise.all(
    fans.map(async (userId, c) => {
      for (let i = c; performance.now() < end; i += LIKE_CLIENTS) {
        const t0 = performance.now();
        try {
          await setLike({ db, generationId: ids[i % ids.length], userId, liked: true });
          if (t0 >= measureFrom) latencies.push(performance.now() - t0);
        } catch {
          errors++;
        }
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  return {
    rows: n,
    clients: LIKE_CLIENTS,
    likesPerSecond: round(latencies.length / (LIKE_MS / 1000), 1),
    latencyMs: { p50: round(percentile(latencies, 0.5)), p99: round(percentile(latencies, 0.99)) },
    errors,
  };
}

const report = { rows: ROWS, postgres: null };
const { openPostgres } = await import("../server/db/client.ts");
const { applyMigrations } = await import("../server/db/migrate.ts");
let database = null;
try {
  database = await benchDatabase();
  if (!database) report.postgres = { skipped: "no PostgreSQL server binaries and no BENCH_DATABASE_URL" };
  else {
    const handle = await openPostgres({ url: database.url, poolMax: LIKE_CLIENTS, connectTimeoutSeconds: 10, logger });
    try {
      await applyMigrations(handle);
      const t0 = performance.now();
      await seed(handle.db);
      const seedSeconds = round((performance.now() - t0) / 1000, 1);
      report.postgres = { seedSeconds, ...(await timeQueries(handle.db)), likes: await timeLikes(handle.db) };
    } finally {
      await handle.close();
    }
  }
} catch (error) {
  report.postgres = { error: String(error.cause?.message ?? error.message ?? error) };
} finally {
  await database?.dispose();
}
await vite.close();
process.stdout.write(`${JSON.stringify(report)}\n`);
process.exit(0);
