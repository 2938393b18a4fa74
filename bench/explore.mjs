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
 * Prompts in seven languages (each row one language): half their words from a short list of common ones (found in
 * tens of thousands of rows), half from a long tail of 20,000 made-up words per language drawn on a log scale, as
 * real prompts' vocabulary goes (`bench_tail_word`: a few words in thousands of rows, most in a handful). So the
 * searches below find from none to tens of thousands of rows, and PostgreSQL's statistics see a real long tail.
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
  // Long-tail words: in about 10,000 rows, about 2,800 and about 100 (`bench_tail_word` 5, 20 and 500).
  ["en", "venkaka"],
  ["en", "kaloka"],
  ["en", "kavenlo"],
  ["en", "zeppelin"],
];

const SYLLABLES = {
  latin: "ka lo mi ser ta ven dor lu pa ri so te na gel bo fi mar qu zu ul".split(" "),
  cyrillic: "ка ло ми сер та вен дор лу па ри со те на гел бо фи мар ку зу ул".split(" "),
};

/** Word `i` of a language's long tail: three syllables (a fourth past 8,000), or two CJK characters. */
const TAIL_WORD = `
  create function bench_tail_word(lang text, i int) returns text language sql immutable as $$
    select case
      when lang in ('zh', 'ja') then chr(19968 + (i * 7919) % 20000) || chr(19968 + (i * 104729) % 20000)
      else (select s[1 + i % 20] || s[1 + (i / 20) % 20] || s[1 + (i / 400) % 20]
        || case when i >= 8000 then s[1 + (i / 8000) % 4] else '' end
        from (select case when lang = 'ru' then array['${SYLLABLES.cyrillic.join("','")}']
          else array['${SYLLABLES.latin.join("','")}'] end as s) syllables)
    end
  $$`;

/**
 * `ROWS` public results (one account, one output each) straight in SQL, in batches, with their likes (a few results
 * with many, most with few or none) in `like_tally` and their rank on the result.
 */
async function seed(db) {
  const owner = randomUUID();
  await db.insert(user).values({ id: owner, name: "Bench", email: `${owner}@bench.invalid`, emailVerified: true });
  await db.execute(sql.raw(TAIL_WORD));
  const langs = Object.keys(WORDS);
  const arrays = langs.map((l) => `array[${WORDS[l].map((w) => `'${w}'`).join(",")}]`);
  const batch = 100_000;
  for (let from = 0; from < ROWS; from += batch) {
    const n = Math.min(batch, ROWS - from);
    await db.execute(
      sql.raw(`
      with made as materialized (
        select gen_random_uuid() as id, i, p.prompt, p.lang, (random() * random() * 200)::int as likes
        from generate_series(${from + 1}, ${from + n}) i
        cross join lateral (
          select l.lang, array_to_string(array(
            select case when random() < 0.5 then w[1 + floor(random() * array_length(w, 1))::int]
              else bench_tail_word(l.lang, floor(exp(random() * ln(20000)))::int) end
            from generate_series(1, 6 + (i % 5)) k), case when l.lang in ('zh', 'ja') then '' else ' ' end) as prompt
          from (select (array['${langs.join("','")}'])[1 + (i % ${langs.length})] as lang) l
          cross join lateral (select case l.lang ${langs.map((l, j) => `when '${l}' then ${arrays[j]}`).join(" ")} end as w) words
        ) p
      ),
      results as (
        insert into generation (id, user_id, kind, tool, model_id, prompt, prompt_lang, params, status, credits_held,
          visibility, timeout_seconds, created_at, finished_at, like_rank)
        select id, '${owner}', 'image', 'text-to-image', 'demo-image', prompt, lang, '{"aspectRatio":"1:1","count":1}',
          'succeeded', 0, 'public', 60, now() - make_interval(secs => i * 30), now() - make_interval(secs => i * 30),
          atelier_like_rank(likes)
        from made
      ),
      tallies as (insert into like_tally (generation_id, likes) select id, likes from made where likes > 0)
      insert into asset (user_id, generation_id, role, kind, mime_type, width, height, size_bytes, checksum, storage_key, thumb_key)
      select '${owner}', id, 'output', 'image', 'image/png', 512, 512, 1000, 'x', 'bench/' || id, 'bench/' || id || '.webp'
      from made`),
    );
  }
  await db.execute(sql`analyze generation`);
  await db.execute(sql`analyze asset`);
  await db.execute(sql`analyze like_tally`);
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
      // Likes go through the counters' pool, as the pages send them.
      report.postgres = { seedSeconds, ...(await timeQueries(handle.db)), likes: await timeLikes(handle.counters) };
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
