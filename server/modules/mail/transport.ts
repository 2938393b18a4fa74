import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import type { Transporter } from "nodemailer";
import type { Logger } from "pino";
import type { MailContent } from "#server/modules/mail/templates.ts";

export interface OutgoingMail extends MailContent {
  to: string;
  /** The link inside, logged when the message goes to the outbox so an offline install can follow it. */
  link: string;
}

export interface Mailer {
  kind: "smtp" | "outbox";
  send(mail: OutgoingMail): Promise<void>;
  close(): void;
}

export interface MailerOptions {
  smtpUrl?: string;
  from: string;
  dataDir: string;
  logger: Logger;
}

/**
 * SMTP when SMTP_URL is set. Otherwise every message becomes a JSON file in DATA_DIR/outbox and its link is
 * logged: nothing is lost on an offline install, and the operator can still complete a sign-up.
 */
/** What the outbox folder is, for whoever opens it. */
export const OUTBOX_NOTE = `This folder holds the e-mails Atelier would have sent, one JSON file each, newest last.

No SMTP server is configured (SMTP_URL is unset), so nothing leaves this machine: each message's "link" (confirm
an address, reset a password) is also written to the server's log. To confirm the first account, open the link of
its "Confirm your e-mail address" message in the browser.

To send real e-mails, set SMTP_URL (smtp://user:pass@host:587 or smtps://...:465) and MAIL_FROM, then restart.
`;

export function createMailer({ smtpUrl, from, dataDir, logger }: MailerOptions): Mailer {
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
  const outbox = join(dataDir, "outbox");
  return {
    kind: "outbox",
    async send(mail) {
      mkdirSync(outbox, { recursive: true });
      const note = join(outbox, "README.txt");
      if (!existsSync(note)) writeFileSync(note, OUTBOX_NOTE);
      const file = join(outbox, `${new Date().toISOString().replace(/[:.]/g, "-")}-${randomUUID().slice(0, 8)}.json`);
      const record = { from, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html, link: mail.link };
      writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
      logger.info({ to: mail.to, subject: mail.subject, link: mail.link, file }, "e-mail written to the outbox");
    },
    close: () => undefined,
  };
}
