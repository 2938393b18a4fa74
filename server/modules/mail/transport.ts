import { randomUUID } from "node:crypto";
import type { Transporter } from "nodemailer";
import type { Logger } from "pino";
import type { MailContent } from "#server/modules/mail/templates.ts";
import type { Storage } from "#server/storage/storage.ts";

export interface OutgoingMail extends MailContent {
  to: string;
  /** The link inside, logged when the message goes to the outbox so an offline install can follow it. */
  link: string;
  /** Names the message in the outbox (time-ordered); a message sent again under the same id is one message. */
  id?: string;
}

export interface Mailer {
  kind: "smtp" | "outbox";
  send(mail: OutgoingMail): Promise<void>;
  close(): void;
}

export interface MailerOptions {
  smtpUrl?: string;
  from: string;
  /** Where the outbox lives: the storage every process shares. */
  storage: Storage;
  logger: Logger;
}

/** The outbox's objects in storage: `DATA_DIR/files/outbox/` on local disk, `outbox/` in a bucket. */
export const OUTBOX_PREFIX = "outbox/";
/** The one log line per message that carries its link; the operations guide tells operators to look for it. */
export const OUTBOX_LOG_MESSAGE = "e-mail written to the outbox";

/** What the outbox is, for whoever opens it. */
export const OUTBOX_NOTE = `This folder holds the e-mails Atelier would have sent, one JSON file each, newest last.

No SMTP server is configured (SMTP_URL is unset), so nothing leaves this machine: each message's "link" (confirm
an address, reset a password) is also written once to the log of the process that sent it, on a line that says
"${OUTBOX_LOG_MESSAGE}" (with separate workers: a worker's log). To confirm the first account, open the link of
its "Confirm your e-mail address" message in the browser.

To send real e-mails, set SMTP_URL (smtp://user:pass@host:587 or smtps://...:465) and MAIL_FROM, then restart.
`;

/** A time-ordered name for a message, given when it is queued. */
export const outboxId = () => `${new Date().toISOString().replace(/[:.]/g, "-")}-${randomUUID().slice(0, 8)}`;

const encode = (text: string) => new TextEncoder().encode(text);

/**
 * SMTP when SMTP_URL is set. Otherwise every message becomes a JSON object under `outbox/` in the storage all
 * processes share, and its link is logged once, by the process that wrote it: nothing is lost on an offline
 * install, any process (or the operator) finds every message in one place, and the operator can still complete
 * a sign-up.
 */
export function createMailer({ smtpUrl, from, storage, logger }: MailerOptions): Mailer {
  if (smtpUrl) {
    // The SMTP client is loaded with the first message: a server that sends none never holds it in memory.
    let transport: Promise<Transporter> | undefined;
    const open = () =>
      (transport ??= import("nodemailer").then(({ default: nodemailer }) => nodemailer.createTransport(smtpUrl)));
    return {
      kind: "smtp",
      async send(mail) {
        await (await open()).sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html });
      },
      close: () => void transport?.then((t) => t.close()),
    };
  }
  const noteKey = `${OUTBOX_PREFIX}README.txt`;
  return {
    kind: "outbox",
    async send(mail) {
      if (!(await storage.stat(noteKey))) await storage.put(noteKey, encode(OUTBOX_NOTE), "text/plain");
      const key = `${OUTBOX_PREFIX}${mail.id ?? outboxId()}.json`;
      // A job run again (its worker died after writing) writes the same message, and does not log it again.
      const again = await storage.stat(key);
      const record = { from, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html, link: mail.link };
      await storage.put(key, encode(`${JSON.stringify(record, null, 2)}\n`), "application/json");
      if (!again) logger.info({ to: mail.to, subject: mail.subject, link: mail.link, key }, OUTBOX_LOG_MESSAGE);
    },
    close: () => undefined,
  };
}
