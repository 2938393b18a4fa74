import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { backends, openEngine } from "#tests/support/backends.ts";
import { recordJobOutcome } from "#server/modules/job-metrics/record-job-outcome.ts";
import { readJobMetrics } from "#server/modules/job-metrics/read-job-metrics.ts";

const QUEUE = "maintenance.purge-expired-sessions";

for (const backend of backends) {
  describe(`the installation's job figures on ${backend.name}`, () => {
    let engine: Awaited<ReturnType<typeof openEngine>>;
    beforeAll(async () => {
      engine = await openEngine(backend);
    });
    afterAll(async () => {
      await engine?.close();
    });
    const db = () => engine.handle.db;
    const finished = async (queue: string) => {
      const rows = (await readJobMetrics({ db: db() })).tally.filter((r) => r.queue === queue);
      const by = (outcome: string) => rows.filter((r) => r.outcome === outcome).reduce((n, r) => n + r.jobs, 0);
      return { completed: by("completed"), retried: by("retried"), failed: by("failed"), rows };
    };

    it("adds each finished job to its queue, outcome and duration bucket", async () => {
      await Promise.all([
        recordJobOutcome({ db: db(), queue: "q.one", outcome: "completed", seconds: 0.7 }),
        recordJobOutcome({ db: db(), queue: "q.one", outcome: "completed", seconds: 0.9 }),
        recordJobOutcome({ db: db(), queue: "q.one", outcome: "retried", seconds: 12 }),
        recordJobOutcome({ db: db(), queue: "q.one", outcome: "failed", seconds: 5000 }),
        recordJobOutcome({ db: db(), queue: "q.one", outcome: "retried", seconds: null }),
      ]);
      const { completed, retried, failed, rows } = await finished("q.one");
      expect({ completed, retried, failed }).toEqual({ completed: 2, retried: 2, failed: 1 });
      const row = (outcome: string, le: number) => rows.find((r) => r.outcome === outcome && r.le === le);
      expect(row("completed", 1)).toMatchObject({ jobs: 2 });
      expect(row("completed", 1)!.seconds).toBeCloseTo(1.6);
      expect(row("retried", 15)).toMatchObject({ jobs: 1, seconds: 12 });
      expect(row("retried", -1)).toMatchObject({ jobs: 1, seconds: 0 });
      expect(row("failed", Infinity)).toMatchObject({ jobs: 1, seconds: 5000 });
    });

    it("reads waiting, retrying and running jobs by queue from the job table", async () => {
      const ids = await Promise.all([1, 2, 3].map(() => engine.boss.send(QUEUE, {})));
      await db().execute(sql`update pgboss.job set state = 'active', started_on = now() where id = ${ids[0]}`);
      await db().execute(sql`update pgboss.job set state = 'retry' where id = ${ids[1]}`);
      const snapshot = await readJobMetrics({ db: db() });
      expect(snapshot.queues).toContain(QUEUE);
      expect(snapshot.queues).toContain("webhook.deliver");
      expect(snapshot.queues.filter((q) => q.startsWith("__pgboss__"))).toEqual([]);
      const depth = snapshot.depth.filter((d) => d.queue === QUEUE);
      expect(depth.sort((a, b) => a.state.localeCompare(b.state))).toEqual([
        { queue: QUEUE, state: "active", jobs: 1 },
        { queue: QUEUE, state: "queued", jobs: 1 },
        { queue: QUEUE, state: "retry", jobs: 1 },
      ]);
    });

    it("counts once, as failed, the jobs pg-boss failed for good when their worker went silent", async () => {
      await readJobMetrics({ db: db() });
      const before = await finished(QUEUE);
      // Jobs pg-boss gave up on two minutes ago (timed out, heartbeat lost), one a handler failed, one still retrying.
      const ids = await Promise.all([1, 2, 3, 4].map(() => engine.boss.send(QUEUE, {})));
      const end = (id: string | null, state: string, message: string) =>
        db().execute(sql`
          update pgboss.job set state = ${state}::pgboss.job_state, started_on = now() - interval '5 minutes',
            completed_on = now() - interval '2 minutes', output = ${JSON.stringify({ value: { message } })}::jsonb
          where id = ${id}`);
      await end(ids[0]!, "failed", "job timed out");
      await end(ids[1]!, "failed", "job heartbeat timeout");
      await db().execute(
        sql`update pgboss.job set state = 'failed', completed_on = now() - interval '2 minutes', output = '{"message":"boom"}' where id = ${ids[2]}`,
      );
      await end(ids[3]!, "retry", "job timed out");
      // Those failures are older than the count's last mark: as if the last read was before them.
      await db().execute(sql`update job_tally_mark set counted_until = now() - interval '10 minutes'`);
      expect((await finished(QUEUE)).failed).toBe(before.failed + 2);
      expect((await finished(QUEUE)).failed).toBe(before.failed + 2);
      const [mark] = (
        (await db().execute(sql`select counted_until > now() - interval '1 minute' as recent from job_tally_mark`)) as {
          rows: { recent: boolean }[];
        }
      ).rows;
      expect(mark!.recent).toBe(true);
    });
  });
}
