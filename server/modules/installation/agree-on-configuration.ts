import { createHash, randomUUID } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import type { Logger } from "pino";
import type { Db } from "#server/db/client.ts";
import { DatabaseStartError } from "#server/db/errors.ts";
import { appSetting } from "#server/db/schema/index.ts";
import type { Env } from "#server/env.ts";
import type { Storage } from "#server/storage/index.ts";
import { loadAuthSecret } from "#server/modules/auth/load-auth-secret.ts";
import {
  describeProcess,
  otherRunningProcesses,
  registerProcess,
  type ProcessIdentity,
  type RunningProcess,
} from "./register-process.ts";

/** The object every process sharing this installation's storage finds at its root. */
export const STORAGE_MARKER_KEY = "atelier-storage.json";
export const SHARED_CONFIG_KEY = "shared_config";

type Source = "env" | "default";

/** What the first process recorded, and every later one agrees with. */
export interface SharedConfig {
  SITE_URL?: { value: string; source: Source };
  WEBHOOK_ALLOW_PRIVATE_NETWORKS?: { value: boolean; source: Source };
  /** A fingerprint, never the secret; `database` when the secret is the one generated and kept in the database. */
  AUTH_SECRET?: { fingerprint: string; source: "env" | "database" };
  STORAGE?: { id: string; where: string };
}

export type SharedSetting = keyof SharedConfig;
export const SHARED_SETTINGS: SharedSetting[] = [
  "SITE_URL",
  "WEBHOOK_ALLOW_PRIVATE_NETWORKS",
  "AUTH_SECRET",
  "STORAGE",
];

/** A process whose settings disagree with the other processes': it stops with this one line. */
export class ConfigurationMismatch extends DatabaseStartError {}

export interface Agreement {
  /** The environment with the agreed values filled in: what the rest of the process must use. */
  env: Env;
  /** The secret that signs sessions and links. */
  authSecret: string;
}

export function fingerprintOf(secret: string): string {
  return createHash("sha256").update(`atelier auth secret\n${secret}`).digest("hex").slice(0, 16);
}

/** Without SITE_URL a process's own address: the default of config/site.ts. */
export function defaultSiteUrl(env: Pick<Env, "PORT">): string {
  return env.PORT > 0 ? `http://localhost:${env.PORT}` : "http://localhost:3000";
}

const CHANGE_ALL = "to change it for every process, run `npm run admin -- config forget";

/**
 * Makes every process of an installation use the same site URL, webhook policy, auth secret and storage. The first
 * process records its values in the database; a later one that leaves a value unset takes the recorded one, and one
 * whose environment says otherwise is refused while other processes run (it would sign links they reject, or keep
 * files they cannot find) and changes the record when it runs alone (a restart with new settings). The storage is
 * checked by an object kept in it, whose id is recorded: a process pointed at another folder or bucket is refused
 * even alone, since the files it lacks would be lost to its users.
 *
 * Runs in one transaction under an advisory lock, with this process registered in it, so processes starting together
 * are checked one after the other and each sees the ones before.
 */
export async function agreeOnConfiguration(options: {
  db: Db;
  env: Env;
  storage: Storage;
  me: ProcessIdentity;
  /** On the embedded database no other process can run. */
  shared: boolean;
  logger: Logger;
}): Promise<Agreement> {
  const { env, storage, me, logger } = options;
  // The generated secret is made outside the lock's transaction: it is its own idempotent insert.
  const databaseSecret = env.AUTH_SECRET ? undefined : await loadAuthSecret({ db: options.db });
  return options.db.transaction(async (tx) => {
    const recorded = await lockedSharedConfig(tx);
    const others = options.shared ? await otherRunningProcesses(tx, me) : [];
    if (options.shared) await registerProcess(tx, me);
    const alone = others.length === 0;
    const next: SharedConfig = { ...recorded };
    const changes: string[] = [];
    const whoElse = () => describeOthers(others);

    const plain = { alone, whoElse, changes };
    const siteUrl = agreeOnValue(
      "SITE_URL",
      env.SITE_URL
        ? { value: env.SITE_URL.replace(/\/+$/, ""), source: "env" }
        : { value: defaultSiteUrl(env), source: "default" },
      recorded.SITE_URL,
      String,
      plain,
    );
    next.SITE_URL = siteUrl;
    const allowPrivate = env.WEBHOOK_ALLOW_PRIVATE_NETWORKS;
    const webhooks = agreeOnValue(
      "WEBHOOK_ALLOW_PRIVATE_NETWORKS",
      allowPrivate === undefined ? { value: false, source: "default" } : { value: allowPrivate, source: "env" },
      recorded.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
      (v) => (v ? "on" : "off"),
      plain,
    );
    next.WEBHOOK_ALLOW_PRIVATE_NETWORKS = webhooks;

    // AUTH_SECRET
    let authSecret: string;
    {
      authSecret = env.AUTH_SECRET ?? databaseSecret!;
      const mine = {
        fingerprint: fingerprintOf(authSecret),
        source: env.AUTH_SECRET ? ("env" as const) : ("database" as const),
      };
      const was = recorded.AUTH_SECRET;
      if (!was || was.fingerprint === mine.fingerprint) next.AUTH_SECRET = was?.source === "env" ? was : mine;
      else if (!alone) {
        throw new ConfigurationMismatch(
          env.AUTH_SECRET
            ? `AUTH_SECRET differs from the one ${whoElse()} use (fingerprint ${was.fingerprint}, here ${mine.fingerprint}): sessions and signed links would not carry over. Set the same AUTH_SECRET on every process${was.source === "database" ? ", or leave it unset on every one to use the secret kept in the database" : ""}; ${CHANGE_ALL} AUTH_SECRET\` and restart them.`
            : `AUTH_SECRET is not set here, but ${whoElse()} use one (fingerprint ${was.fingerprint}). Set the same AUTH_SECRET on this process; ${CHANGE_ALL} AUTH_SECRET\` and restart them.`,
        );
      } else {
        next.AUTH_SECRET = mine;
        changes.push(
          env.AUTH_SECRET
            ? "AUTH_SECRET changed: sessions and signed links made with the previous secret no longer work"
            : "AUTH_SECRET is no longer set: the secret kept in the database signs from now on, and sessions and signed links made with the previous one no longer work",
        );
      }
    }

    // The storage
    {
      let marker: { id: string } | null;
      try {
        marker = await readMarker(storage);
      } catch (error) {
        throw new ConfigurationMismatch(
          `Cannot read ${storage.where} (${(error as Error).message}): check ${storage.kind === "s3" ? "S3_BUCKET, S3_ENDPOINT and the S3 credentials" : "DATA_DIR and its permissions"}.`,
        );
      }
      const was = recorded.STORAGE;
      const variables = storage.kind === "s3" ? "S3_BUCKET and S3_ENDPOINT" : "DATA_DIR (or S3_BUCKET)";
      if (was && marker?.id !== was.id) {
        throw new ConfigurationMismatch(
          `This process's storage, ${storage.where}, is not the one this installation keeps its files in (${was.where}, marked ${was.id}): it ${marker ? `holds the mark of another installation (${marker.id})` : `lacks the ${STORAGE_MARKER_KEY} object`}. Point ${variables} at the shared storage: every web and worker process must use the same folder or bucket. If the files were moved, copy ${STORAGE_MARKER_KEY} with them; to start over with this storage, run \`npm run admin -- config forget STORAGE\`.`,
        );
      }
      if (!marker) {
        marker = { id: randomUUID() };
        try {
          await storage.put(
            STORAGE_MARKER_KEY,
            new TextEncoder().encode(`${JSON.stringify({ id: marker.id, createdAt: new Date().toISOString() })}\n`),
            "application/json",
          );
        } catch (error) {
          throw new ConfigurationMismatch(
            `Cannot write to ${storage.where} (${(error as Error).message}): check ${storage.kind === "s3" ? "S3_BUCKET, S3_ENDPOINT and the S3 credentials" : "DATA_DIR and its permissions"}.`,
          );
        }
      }
      next.STORAGE = { id: marker.id, where: was?.where ?? storage.where };
    }

    if (JSON.stringify(next) !== JSON.stringify(recorded)) {
      await tx
        .insert(appSetting)
        .values({ key: SHARED_CONFIG_KEY, value: next })
        .onConflictDoUpdate({ target: appSetting.key, set: { value: next, updatedAt: sql`now()` } });
    }
    for (const change of changes) logger.warn(change);
    const agreed: Env = {
      ...env,
      SITE_URL: siteUrl.source === "env" || !alone ? siteUrl.value : env.SITE_URL,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: webhooks.value,
    };
    if (!env.SITE_URL && agreed.SITE_URL) logger.info({ siteUrl: agreed.SITE_URL }, "SITE_URL taken from the database");
    return { env: agreed, authSecret };
  });
}

/**
 * The rule for a setting with a default: the first value is recorded; one given in the environment that differs is
 * refused while others run and recorded when alone; an unset one takes the record, or this process's own default
 * when the record is a default too and no other process runs.
 */
function agreeOnValue<T>(
  name: string,
  mine: { value: T; source: Source },
  was: { value: T; source: Source } | undefined,
  show: (value: T) => string,
  { alone, whoElse, changes }: { alone: boolean; whoElse: () => string; changes: string[] },
): { value: T; source: Source } {
  if (!was) return mine;
  if (mine.source === "env" && mine.value !== was.value) {
    if (!alone)
      throw new ConfigurationMismatch(
        `${name} is ${show(mine.value)} here, but ${whoElse()} use ${show(was.value)}. Set the same ${name} on every process, or leave it unset to take the recorded one; ${CHANGE_ALL} ${name}\` and restart them.`,
      );
    changes.push(`${name} changed from ${show(was.value)} to ${show(mine.value)}`);
    return mine;
  }
  if (mine.source === "env" || (was.source === "default" && alone)) return mine;
  return was;
}

async function readMarker(storage: Storage): Promise<{ id: string } | null> {
  const found = await storage.get(STORAGE_MARKER_KEY);
  if (!found) return null;
  const text = await new Response(found.body).text();
  try {
    const parsed = JSON.parse(text) as { id?: unknown };
    if (typeof parsed.id === "string" && parsed.id.length > 0) return { id: parsed.id };
  } catch {
    // an unreadable marker is reported as a marker of no installation
  }
  return { id: "unreadable" };
}

function describeOthers(others: RunningProcess[]): string {
  const named = others.slice(0, 3).map(describeProcess).join(", ");
  const more = others.length > 3 ? ` and ${others.length - 3} more` : "";
  return `the other processes on this database (${named}${more})`;
}

/** What `npm run admin -- config` shows, and forgets one value of so that the next process to start records its own. */
export async function readSharedConfig(db: Db): Promise<SharedConfig> {
  const [row] = await db
    .select({ value: appSetting.value })
    .from(appSetting)
    .where(eq(appSetting.key, SHARED_CONFIG_KEY));
  return (row?.value ?? {}) as SharedConfig;
}

/** The record, read under the lock that makes processes starting together take turns (within the caller's transaction). */
async function lockedSharedConfig(tx: Db): Promise<SharedConfig> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext('atelier.shared_config'))`);
  return readSharedConfig(tx);
}

export async function forgetSharedSetting(db: Db, name: SharedSetting): Promise<boolean> {
  return db.transaction(async (tx) => {
    const recorded = await lockedSharedConfig(tx);
    if (!(name in recorded)) return false;
    const { [name]: _forgotten, ...rest } = recorded;
    await tx
      .update(appSetting)
      .set({ value: rest, updatedAt: sql`now()` })
      .where(eq(appSetting.key, SHARED_CONFIG_KEY));
    return true;
  });
}
