import { eq, sql } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { webhookSecret } from "#server/db/schema/index.ts";
import { generateWebhookSecret } from "./sign.ts";

/** How long the secret a rotation replaced keeps signing next to the new one. */
export const PREVIOUS_SECRET_HOURS = 24;

/** About the secret, without it: what the page shows until the user asks to see it. */
export interface WebhookSecretInfo {
  createdAt: string;
  /** Until when the secret before the last rotation still signs too; null when there is none. */
  previousExpiresAt: string | null;
}

export interface WebhookSecretView extends WebhookSecretInfo {
  secret: string;
}

type Row = typeof webhookSecret.$inferSelect;

/** The secret a rotation replaced, while it still signs. */
function previousIfValid(row: Row): { secret: string; expiresAt: Date } | null {
  return row.previousSecret && row.previousExpiresAt && row.previousExpiresAt > new Date()
    ? { secret: row.previousSecret, expiresAt: row.previousExpiresAt }
    : null;
}

function view(row: Row): WebhookSecretView {
  return {
    secret: row.secret,
    createdAt: (row.rotatedAt ?? row.createdAt).toISOString(),
    previousExpiresAt: previousIfValid(row)?.expiresAt.toISOString() ?? null,
  };
}

/** The user's signing secret, made on first need (two first needs at once agree on one). */
async function ensure(db: Db, userId: string): Promise<Row> {
  const read = async () => (await db.select().from(webhookSecret).where(eq(webhookSecret.userId, userId)))[0];
  const existing = await read();
  if (existing) return existing;
  const [made] = await db
    .insert(webhookSecret)
    .values({ userId, secret: generateWebhookSecret() })
    .onConflictDoNothing()
    .returning();
  return made ?? (await read())!;
}

export async function getWebhookSecret(options: { db: Db; userId: string }): Promise<WebhookSecretView> {
  return view(await ensure(options.db, options.userId));
}

export async function getWebhookSecretInfo(options: { db: Db; userId: string }): Promise<WebhookSecretInfo> {
  const { createdAt, previousExpiresAt } = view(await ensure(options.db, options.userId));
  return { createdAt, previousExpiresAt };
}

/** Every secret a message must be signed with now: the current one, and the previous one while it lasts. */
export async function signingSecrets(options: { db: Db; userId: string }): Promise<string[]> {
  const row = await ensure(options.db, options.userId);
  const previous = previousIfValid(row);
  return previous ? [row.secret, previous.secret] : [row.secret];
}

/**
 * A new secret; the one it replaces keeps signing beside it for a day, so receivers can move over without losing
 * a message. Rotating twice within that day drops the oldest: only the secret just replaced stays valid.
 */
export async function rotateWebhookSecret(options: { db: Db; userId: string }): Promise<WebhookSecretView> {
  await ensure(options.db, options.userId);
  const [row] = await options.db
    .update(webhookSecret)
    .set({
      previousSecret: sql`${webhookSecret.secret}`,
      previousExpiresAt: sql`now() + make_interval(hours => ${PREVIOUS_SECRET_HOURS})`,
      secret: generateWebhookSecret(),
      rotatedAt: sql`now()`,
    })
    .where(eq(webhookSecret.userId, options.userId))
    .returning();
  return view(row!);
}
