import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLocalStorage } from "#server/storage/local.ts";
import { createS3Storage } from "#server/storage/s3.ts";
import { S3_TEST, startFakeS3, type FakeS3 } from "#tests/fakes/s3.ts";
import { createMailer, OUTBOX_LOG_MESSAGE, OUTBOX_NOTE, outboxId } from "./transport.ts";

/** A logger whose lines the test reads. */
function capturingLogger() {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: "info" }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { logger, lines, links: () => lines.filter((l) => l.msg === OUTBOX_LOG_MESSAGE).map((l) => l.link) };
}

const from = "Atelier <noreply@example.com>";
const mail = { to: "a@example.com", subject: "Confirm", text: "t", html: "<p>t</p>", link: "http://x/confirm?t=1" };

describe("the outbox, without an SMTP server", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "atelier-mail-"));
  let s3: FakeS3;
  beforeAll(async () => {
    s3 = await startFakeS3();
  });
  afterAll(async () => {
    await s3?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("writes each message as a file in storage beside a note that says what the folder is and how to confirm an account", async () => {
    const storage = createLocalStorage(dataDir);
    const mailer = createMailer({ from, storage, logger: pino({ level: "silent" }) });
    expect(mailer.kind).toBe("outbox");
    await mailer.send(mail);
    await mailer.send({ ...mail, to: "b@example.com" });
    const folder = join(storage.root, "outbox");
    const files = readdirSync(folder).sort();
    expect(files.filter((f) => f.endsWith(".json"))).toHaveLength(2);
    expect(files).toContain("README.txt");
    const note = readFileSync(join(folder, "README.txt"), "utf8");
    expect(note).toBe(OUTBOX_NOTE);
    expect(note).toContain("SMTP_URL");
    expect(note).toContain(OUTBOX_LOG_MESSAGE);
    expect(note).toMatch(/confirm the first account/i);
    const first = JSON.parse(
      readFileSync(
        join(
          folder,
          files.find((f) => f.endsWith(".json"))!,
        ),
        "utf8",
      ),
    );
    expect(first).toMatchObject({ from, to: "a@example.com", link: mail.link });
  });

  it("logs each link once, by the process that writes the message, even when its job runs twice", async () => {
    const storage = createLocalStorage(dataDir);
    const { logger, lines, links } = capturingLogger();
    const mailer = createMailer({ from, storage, logger });
    const id = outboxId();
    const reset = { ...mail, link: "http://x/reset?t=2", id };
    await mailer.send(reset);
    // The same job again, as after a worker died between writing the message and finishing the job.
    await mailer.send(reset);
    expect(links()).toEqual([reset.link]);
    expect(lines.find((l) => l.msg === OUTBOX_LOG_MESSAGE)).toMatchObject({
      level: 30,
      to: mail.to,
      key: `outbox/${id}.json`,
    });
    expect(readdirSync(join(storage.root, "outbox")).filter((f) => f.startsWith(id))).toEqual([`${id}.json`]);
  });

  it("keeps one outbox for every process on a shared bucket, whatever their data folders", async () => {
    const bucket = () =>
      createS3Storage({
        bucket: S3_TEST.bucket,
        region: S3_TEST.region,
        endpoint: s3.url,
        accessKeyId: S3_TEST.accessKeyId,
        secretAccessKey: S3_TEST.secretAccessKey,
        forcePathStyle: true,
      });
    const worker = capturingLogger();
    const other = capturingLogger();
    const id = outboxId();
    await createMailer({ from, storage: bucket(), logger: worker.logger }).send({ ...mail, id });
    // Another process (another worker, or a web process) sees the message, and a second send logs nothing.
    const elsewhere = bucket();
    const stored = await elsewhere.get(`outbox/${id}.json`);
    expect(JSON.parse(await new Response(stored!.body).text())).toMatchObject({ to: mail.to, link: mail.link });
    await createMailer({ from, storage: elsewhere, logger: other.logger }).send({ ...mail, id });
    expect(worker.links()).toEqual([mail.link]);
    expect(other.links()).toEqual([]);
  });
});
