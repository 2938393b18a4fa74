import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { createMailer, OUTBOX_NOTE } from "./transport.ts";

describe("the outbox, without an SMTP server", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "atelier-mail-"));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it("writes each message as a file beside a note that says what the folder is and how to confirm an account", async () => {
    const mailer = createMailer({ from: "Atelier <noreply@example.com>", dataDir, logger: pino({ level: "silent" }) });
    expect(mailer.kind).toBe("outbox");
    const mail = { to: "a@example.com", subject: "Confirm", text: "t", html: "<p>t</p>", link: "http://x/confirm" };
    await mailer.send(mail);
    await mailer.send({ ...mail, to: "b@example.com" });
    const files = readdirSync(join(dataDir, "outbox")).sort();
    expect(files.filter((f) => f.endsWith(".json"))).toHaveLength(2);
    expect(files).toContain("README.txt");
    const note = readFileSync(join(dataDir, "outbox", "README.txt"), "utf8");
    expect(note).toBe(OUTBOX_NOTE);
    expect(note).toContain("SMTP_URL");
    expect(note).toMatch(/confirm the first account/i);
  });
});
