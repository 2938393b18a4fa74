import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { PgBoss } from "pg-boss";
import { freePort, ROOT, runRole, startServer, tempDir, TEST_DATABASE_URL, waitFor } from "#tests/support/server.ts";
import { signedIn } from "#tests/support/session.ts";
import { createDbProxy, createTestDatabase } from "#tests/support/postgres.ts";
import { S3_TEST, startFakeS3 } from "#tests/fakes/s3.ts";

const QUEUE = "maintenance.purge-expired-sessions";

async function insertSessions(db: Awaited<ReturnType<typeof createTestDatabase>>) {
  await db.query(`insert into "user" (id, name, email) values ('u1', 'Ada', 'ada@example.com') on conflict do nothing`);
  await db.query(
    `insert into session (id, token, user_id, expires_at) values
       ('old', 'tok-old', 'u1', now() - interval '1 day'),
       ('live', 'tok-live', 'u1', now() + interval '1 day')`,
  );
}

async function sendPurge(url: string) {
  const boss = new PgBoss({ connectionString: url, schema: "pgboss", supervise: false, schedule: false });
  boss.on("error", () => undefined);
  await boss.start();
  await boss.send(QUEUE, {});
  await boss.stop({ graceful: false });
}

/** Every migration the build ships, from drizzle-kit's journal. */
const MIGRATIONS = (
  JSON.parse(readFileSync(join(ROOT, "server/db/migrations/meta/_journal.json"), "utf8")) as { entries: unknown[] }
).entries;

describe.skipIf(!TEST_DATABASE_URL)("on PostgreSQL", () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  // Every process of the installation keeps its files in the same storage.
  const DATA_DIR = tempDir();
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db?.drop();
    rmSync(DATA_DIR, { recursive: true, force: true });
  });

  it("migrates once and only once, however many times and processes start", async () => {
    const runs = [runRole("migrate", { DATABASE_URL: db.url }), runRole("migrate", { DATABASE_URL: db.url })];
    expect(await Promise.all(runs.map((r) => r.exited))).toEqual([0, 0]);
    const again = runRole("migrate", { DATABASE_URL: db.url });
    expect(await again.exited).toBe(0);
    const applied = await db.query<{ n: string }>("select count(*)::text as n from drizzle.__drizzle_migrations");
    expect(applied[0]!.n).toBe(String(MIGRATIONS.length));
    const settings = await db.query<{ key: string }>("select key from app_setting order by key");
    expect(settings.map((s) => s.key)).toEqual(["installed_at", "instance_id"]);
  });

  it("runs jobs in a separate worker process while the web process works none", async () => {
    await insertSessions(db);
    const web = await startServer({ DATABASE_URL: db.url, DATA_DIR, WORKER: "off" });
    const worker = runRole("worker", { DATABASE_URL: db.url, DATA_DIR });
    try {
      await waitFor("the worker to start", async () => worker.output().includes("worker started"), {
        output: worker.output,
      });
      await sendPurge(db.url);
      await waitFor(
        "the expired session to be purged",
        async () => (await db.query("select id from session where id = 'old'")).length === 0,
        { output: worker.output },
      );
      expect((await db.query("select id from session")).map((r) => r.id)).toEqual(["live"]);
      expect(worker.output()).toContain("expired sessions purged");
      expect(web.output()).not.toContain("worker started");
      expect(await worker.stop()).toBe(0);
      expect(worker.output()).toContain("worker stopping: fetching no new jobs, letting running ones finish");
      expect(worker.output()).toContain("worker stopped");
    } finally {
      await worker.stop();
      await web.close();
    }
  });

  it("writes a worker's e-mail to the outbox every process shares, its link logged once, by the worker", async () => {
    // An installation of its own: its files are in a bucket, where the other tests' are in a folder.
    const own = await createTestDatabase();
    const s3 = await startFakeS3();
    const bucket = {
      S3_BUCKET: S3_TEST.bucket,
      S3_REGION: S3_TEST.region,
      S3_ENDPOINT: s3.url,
      S3_ACCESS_KEY_ID: S3_TEST.accessKeyId,
      S3_SECRET_ACCESS_KEY: S3_TEST.secretAccessKey,
      S3_FORCE_PATH_STYLE: "true",
    };
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const web = await startServer({
      ...bucket,
      DATABASE_URL: own.url,
      WORKER: "off",
      PORT: String(port),
      SITE_URL: origin,
    });
    // Another machine: its own data folder, the same database and bucket.
    const workerDir = tempDir();
    const worker = runRole("worker", { ...bucket, DATABASE_URL: own.url, DATA_DIR: workerDir, SITE_URL: origin });
    const email = "outbox@example.com";
    const logged = (out: string) =>
      out
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as { msg?: string; to?: string; link?: string; level?: number })
        .filter((l) => l.msg === "e-mail written to the outbox" && l.to === email);
    try {
      await fetch(`${web.url}/auth/register`, {
        method: "POST",
        redirect: "manual",
        headers: { Origin: origin, "Sec-Fetch-Site": "same-origin" },
        body: new URLSearchParams({ name: "Maker", email, password: "harbor-Violet-42!", terms: "on" }),
      });
      const stored = () =>
        [...s3.objects.entries()]
          .filter(([key]) => key.startsWith("outbox/") && key.endsWith(".json"))
          .map(([key, o]) => ({ key, ...(JSON.parse(o.body.toString("utf8")) as { to: string; link: string }) }))
          .filter((m) => m.to === email);
      await waitFor("the confirmation e-mail in the shared outbox", async () => stored().length === 1, {
        output: worker.output,
      });
      const [mail] = stored();
      await waitFor("the worker to log its link", async () => logged(worker.output()).length > 0, {
        output: worker.output,
      });
      expect(logged(worker.output())).toEqual([
        expect.objectContaining({ level: 30, link: mail!.link, key: mail!.key }),
      ]);
      expect(logged(web.output())).toEqual([]);
      expect(web.output()).not.toContain(mail!.link);
      // The link works on the web process, which holds no copy of the message.
      const confirmed = await fetch(mail!.link, { redirect: "manual" });
      expect(confirmed.status).toBe(302);
      expect(stored()).toHaveLength(1);
    } finally {
      await worker.stop();
      await web.close();
      rmSync(workerDir, { recursive: true, force: true });
      await s3.close();
      await own.drop();
    }
  });

  it("finishes a generation whose worker was killed mid-job, settling its credits exactly once", async () => {
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const web = await startServer({
      DATABASE_URL: db.url,
      DATA_DIR,
      WORKER: "off",
      PORT: String(port),
      SITE_URL: origin,
    });
    const workerEnv = { DATABASE_URL: db.url, DATA_DIR };
    const first = runRole("worker", workerEnv);
    let second: ReturnType<typeof runRole> | undefined;
    try {
      const cookie = await signedIn(web, origin, "crash@example.com");
      const submitted = await fetch(`${web.url}/api/generations`, {
        method: "POST",
        headers: {
          Cookie: cookie,
          Origin: origin,
          "Sec-Fetch-Site": "same-origin",
          "Content-Type": "application/json",
        },
        body: JSON.stringify({ tool: "text-to-video", model: "demo-video", prompt: "a storm at sea", duration: 10 }),
      });
      expect(submitted.status).toBe(201);
      const { generation } = (await submitted.json()) as { generation: { id: string } };
      const read = async () =>
        (
          (await (
            await fetch(`${web.url}/api/generations/${generation.id}`, { headers: { Cookie: cookie } })
          ).json()) as {
            generation: { status: string; progress: number; creditsCharged: number | null };
          }
        ).generation;
      await waitFor("the first worker to be rendering", async () => (await read()).progress >= 5, {
        output: first.output,
      });
      // The worker dies without a chance to clean up: no shutdown, no release, no heartbeat.
      expect(await first.stop("SIGKILL")).toBe("SIGKILL");
      second = runRole("worker", workerEnv);
      const running = second;
      await waitFor(
        "the job to be retried and to end",
        async () => !["queued", "processing"].includes((await read()).status),
        {
          output: () => running.output() + web.output(),
          timeoutMs: 150_000,
        },
      );
      const ended = await read();
      expect(["succeeded", "failed"]).toContain(ended.status);
      const entries = await db.query<{ kind: string; amount: string }>(
        "select kind, amount::text from credit_entry where reference = $1 or hold_id = (select hold_id from generation where id = $2) order by id",
        [`job:${generation.id}`, generation.id],
      );
      expect(entries.map((e) => e.kind)).toEqual(["hold", ended.status === "succeeded" ? "capture" : "release"]);
      const [runs] = await db.query<{ attempt: number }>("select attempt from generation where id = $1", [
        generation.id,
      ]);
      expect(runs!.attempt).toBeGreaterThanOrEqual(2);
      const me = (await (await fetch(`${web.url}/api/me`, { headers: { Cookie: cookie } })).json()) as {
        credits: { held: number; balance: number };
      };
      expect(me.credits.held).toBe(0);
      expect(me.credits.balance).toBe(ended.status === "succeeded" ? 15 : 20);
      // The run the killed worker never finished is counted as retried, by a process that did not see it end.
      const finished = (text: string, outcome: string) =>
        Number(
          new RegExp(
            `^atelier_jobs_finished_total\\{queue="generation\\.run",outcome="${outcome}"\\} (\\d+)$`,
            "m",
          ).exec(text)?.[1] ?? 0,
        );
      await waitFor(
        "the web process's metrics to count both runs",
        async () => {
          const text = await (await fetch(`${web.url}/metrics`)).text();
          return finished(text, "retried") >= 1 && finished(text, "completed") + finished(text, "failed") >= 1;
        },
        { output: () => running.output() },
      );
    } finally {
      await first.stop();
      await second?.stop();
      await web.close();
    }
  });

  it("waits for a database that is down at start, reports not ready meanwhile, then serves", async () => {
    const proxy = await createDbProxy(db.url);
    const web = await startServer({ DATABASE_URL: proxy.urlFor(db.url), DATA_DIR }, { waitReady: false });
    try {
      const starting = await fetch(`${web.url}/readyz`);
      expect(starting.status).toBe(503);
      expect((await starting.json()).status).toBe("starting");
      expect((await fetch(`${web.url}/`)).status).toBe(503);
      proxy.up();
      await waitFor("readiness", async () => (await fetch(`${web.url}/readyz`)).status === 200, {
        output: web.output,
      });
      expect((await fetch(`${web.url}/`)).status).toBe(200);

      // The database goes away while running: not ready, no crash; it comes back: ready again.
      proxy.down();
      await waitFor("readiness to fail", async () => (await fetch(`${web.url}/readyz`)).status === 503, {
        output: web.output,
      });
      expect(await (await fetch(`${web.url}/readyz`)).json()).toMatchObject({ status: "unavailable" });
      expect((await fetch(`${web.url}/healthz`)).status).toBe(200);
      proxy.up();
      await waitFor("readiness to recover", async () => (await fetch(`${web.url}/readyz`)).status === 200, {
        output: web.output,
        timeoutMs: 60_000,
      });
      expect(web.proc.exitCode).toBeNull();
    } finally {
      await web.close();
      await proxy.close();
    }
  });

  it("gives up with a clear error when the database never comes", async () => {
    const proxy = await createDbProxy(db.url);
    try {
      const run = runRole("web", {
        DATABASE_URL: proxy.urlFor(db.url),
        PORT: "0",
        DATABASE_CONNECT_TIMEOUT_SECONDS: "2",
      });
      expect(await run.exited).toBe(1);
      expect(run.output()).toMatch(/Cannot reach PostgreSQL at postgres(ql)?:\/\/[^ ]*127\.0\.0\.1:\d+\/\S+ after 2 s/);
      expect(run.output()).not.toMatch(/:[^:@/]+@127/); // no password in the message
    } finally {
      await proxy.close();
    }
  });

  it("refuses to run a standalone worker on the embedded database", async () => {
    const run = runRole("worker", {});
    expect(await run.exited).toBe(1);
    expect(run.output()).toContain("A standalone worker needs DATABASE_URL (PostgreSQL)");
  });
});
