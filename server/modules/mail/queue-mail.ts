import type { PgBoss } from "#server/jobs/boss.ts";
import type { MailKind } from "#server/modules/mail/templates.ts";
import { outboxId } from "#server/modules/mail/transport.ts";

export const MAIL_QUEUE = "mail.send";

export interface MailJob {
  to: string;
  kind: MailKind;
  locale: string | null;
  name: string;
  url: string;
  /** What the message says beside the site and the name (a plan, a date), already in the recipient's language. */
  values?: Record<string, string>;
  /** The message's name in the outbox, given here so that a job run twice writes (and logs) it once. */
  id?: string;
}

/**
 * E-mails go through the job queue: the request answers at once (and in the same time whether or not a message
 * was due), and a failing SMTP server is retried rather than losing the message.
 */
export async function queueMail({ boss, mail }: { boss: PgBoss; mail: MailJob }): Promise<void> {
  await boss.send(
    MAIL_QUEUE,
    { ...mail, id: mail.id ?? outboxId() },
    { retryLimit: 8, retryDelay: 15, retryBackoff: true },
  );
}
