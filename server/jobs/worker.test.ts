import pino from "pino";
import { describe, expect, it } from "vitest";
import type { JobWithMetadata } from "pg-boss";
import { siteDefaults } from "#config/site.ts";
import type { PgBoss } from "#server/jobs/boss.ts";
import type { JobContext } from "#server/jobs/queues.ts";
import { startWorking } from "#server/jobs/worker.ts";

type Handler = (jobs: JobWithMetadata<object>[]) => Promise<unknown>;

/** The worker's wrappers as pg-boss would call them, over a database whose every write fails. */
async function wrappersWithFailingTally(send: () => Promise<void>) {
  const handlers = new Map<string, Handler>();
  const boss = {
    async work(name: string, _options: object, handler: Handler) {
      handlers.set(name, handler);
      return `worker-${name}`;
    },
    notifyWorker() {},
  } as unknown as PgBoss;
  const lines: string[] = [];
  const logger = pino({ level: "warn" }, { write: (line: string) => void lines.push(line) });
  const db = {
    insert() {
      throw new Error("database is read-only");
    },
  };
  const ctx = { db, site: siteDefaults, mailer: { kind: "outbox", send } } as unknown as JobContext;
  await startWorking(boss, ctx, 1, logger);
  return { mail: handlers.get("mail.send")!, lines };
}

const mailJob = (retryCount: number) =>
  ({
    id: "job-1",
    name: "mail.send",
    data: { to: "ada@example.com", kind: "verifyEmail", locale: "en", name: "Ada", url: "https://example.com/x" },
    retryCount,
    retryLimit: 8,
    output: null,
  }) as unknown as JobWithMetadata<object>;

describe("the worker's count of finished jobs", () => {
  it("never fails a job that succeeded when the count cannot be written: it logs it", async () => {
    let sent = 0;
    const { mail, lines } = await wrappersWithFailingTally(async () => {
      sent++;
    });
    await expect(mail([mailJob(0)])).resolves.toBeUndefined();
    expect(sent).toBe(1);
    expect(lines.join("")).toContain("job tally not written");
  });

  it("fails a failing job with its own error, not the count's", async () => {
    const { mail } = await wrappersWithFailingTally(async () => {
      throw new Error("mail server refused");
    });
    await expect(mail([mailJob(8)])).rejects.toThrow("mail server refused");
  });
});
