import type { Logger } from "pino";
import { openPglite, openPostgres, type DbHandle } from "#server/db/client.ts";
import { DatabaseStartError } from "#server/db/errors.ts";
import { applyMigrations } from "#server/db/migrate.ts";
import { seed } from "#server/db/seed.ts";
import { EnvError, type Env } from "#server/env.ts";
import { createBoss, type PgBoss } from "#server/jobs/boss.ts";
import { defineQueues, startWorking } from "#server/jobs/worker.ts";
import { registerJobMetrics } from "#server/metrics.ts";
import { readJobMetrics } from "#server/modules/job-metrics/read-job-metrics.ts";
import { resolveSiteConfig, type SiteConfig } from "#config/site.ts";
import { createAuth, type Auth } from "#server/modules/auth/auth.ts";
import { createMailer, type Mailer } from "#server/modules/mail/transport.ts";
import { createStorage, type Storage } from "#server/storage/index.ts";
import { createStripeClient, type StripeClient } from "#server/modules/payments/stripe-client.ts";
import { defaultSettings, SettingsStore } from "#server/modules/settings/settings-store.ts";
import { PublicPagesSignal } from "#server/http/public-pages.ts";
import { mediaLinks, type MediaLinks } from "#server/modules/generation/media-links.ts";
import { addressHasher } from "#server/modules/safety/address-hash.ts";
import { agreeOnConfiguration } from "#server/modules/installation/agree-on-configuration.ts";
import {
  forgetProcess,
  keepProcessAlive,
  newProcessIdentity,
  type ProcessIdentity,
  type ProcessRole,
} from "#server/modules/installation/register-process.ts";
import { readBuildInfo } from "#server/build-info.ts";
import { resealConnections } from "#server/modules/catalog/edit-connections.ts";
import { adoptLegacyModelSettings } from "#server/modules/catalog/adopt-legacy-settings.ts";
import { ModelRegistry } from "#server/modules/catalog/model-registry.ts";
import { secretBox, type SecretBox } from "#server/modules/catalog/secret-box.ts";
import { c2paSignerOf } from "#server/media/c2pa.ts";

/** Everything a process holds open: the database, the job queue and the configuration built from the environment. */
export interface Runtime {
  env: Env;
  site: SiteConfig;
  logger: Logger;
  database: DbHandle;
  boss: PgBoss;
  auth: Auth;
  mailer: Mailer;
  storage: Storage;
  /** The payment provider's client, or null when purchasing is not configured. */
  stripe: StripeClient | null;
  /** What administrators set in the console (bonus, packs, banner, maintenance), over the configuration. */
  settings: SettingsStore;
  /** The models and provider connections: the built-in catalog with what operators changed and added. */
  models: ModelRegistry;
  /** Seals and opens the secrets of provider connections kept in the database. */
  secrets: SecretBox;
  /** Says when the public pages kept in memory are out of date. */
  publicPages: PublicPagesSignal;
  /** Signs links that open a private file without a session (API clients' downloads). */
  mediaLinks: MediaLinks;
  /** A keyed hash of a visitor's address, to count their reports without keeping the address. */
  hashAddress: (address: string) => string;
  working: boolean;
  /**
   * Read again after an operator's command this process ran for the command line (server/admin/socket.ts): what it
   * keeps in memory from the database. Each store held in memory adds its refresh here.
   */
  afterAdminCommand: (() => Promise<void>)[];
  /** This process in the list of the installation's running processes. */
  process: ProcessIdentity;
  close(): Promise<void>;
}

export interface OpenRuntimeOptions {
  env: Env;
  logger: Logger;
  /** Subscribe this process to the queues (the embedded worker, or a standalone worker process). */
  work: boolean;
  /** What this process is, in the list of the installation's running processes. */
  role: ProcessRole;
}

export async function openDatabase(env: Env, logger: Logger): Promise<DbHandle> {
  if (env.DATABASE_URL) {
    return openPostgres({
      url: env.DATABASE_URL,
      poolMax: env.DATABASE_POOL_MAX,
      connectTimeoutSeconds: env.DATABASE_CONNECT_TIMEOUT_SECONDS,
      logger,
    });
  }
  return openPglite(env.DATA_DIR, logger);
}

/** Opens the database, migrates, seeds and starts the queue; anything opened is closed again if a later step fails. */
export async function openRuntime({ env: configured, logger, work, role }: OpenRuntimeOptions): Promise<Runtime> {
  const database = await openDatabase(configured, logger);
  const me = newProcessIdentity(role, readBuildInfo().id);
  let env = configured;
  let site: SiteConfig;
  let mailer: Mailer | undefined;
  let storage: Storage;
  let boss: PgBoss | undefined;
  let auth: Auth;
  let links: MediaLinks;
  let hashAddress: (address: string) => string;
  let settings: SettingsStore;
  let models: ModelRegistry;
  let secrets: SecretBox;
  const publicPages = new PublicPagesSignal();
  try {
    storage = createStorage(configured);
    await applyMigrations(database);
    await seed(database.db);
    const agreement = await agreeOnConfiguration({
      db: database.db,
      env: configured,
      storage,
      me,
      shared: database.kind === "postgres",
      logger,
    });
    env = agreement.env;
    site = resolveSiteConfig(env);
    const signer = c2paSignerOf(env);
    if (signer)
      logger.info(
        { signer: signer.subject, issuer: signer.issuer, validTo: signer.validTo.toISOString() },
        "PNG and JPEG outputs are signed with C2PA",
      );
    else logger.info("no C2PA certificate (C2PA_CERT, C2PA_KEY): outputs are marked with XMP alone");
    mailer = createMailer({
      smtpUrl: env.SMTP_URL,
      from: env.MAIL_FROM ?? `${site.name} <${site.supportEmail}>`,
      storage,
      logger,
    });
    settings = new SettingsStore(database.db, defaultSettings(site), logger);
    settings.onChange(() => publicPages.changed());
    boss = createBoss(database, logger, env.DATABASE_POOL_MAX);
    await boss.start();
    await defineQueues(boss);
    registerJobMetrics(() => readJobMetrics({ db: database.db }), {
      onError: (error) => logger.warn({ err: error.message }, "job metrics not read"),
    });
    await settings.refresh();
    const secret = agreement.authSecret;
    secrets = secretBox({
      encryptionKey: env.ENCRYPTION_KEY,
      authSecret: secret,
      previous: env.ENCRYPTION_KEY_PREVIOUS,
    });
    const resealed = await resealConnections(database.db, secrets);
    if (resealed > 0) logger.info({ connections: resealed }, "connections' keys sealed again under ENCRYPTION_KEY");
    const adopted = await adoptLegacyModelSettings(database.db, env);
    if (adopted > 0) logger.info({ models: adopted }, "models' console settings moved into the catalog");
    models = new ModelRegistry(env, { db: database.db, box: secrets, logger });
    models.onChange(() => publicPages.changed());
    await models.refresh();
    auth = createAuth({ db: database.db, env, site, logger, boss, secret, settings });
    links = mediaLinks(secret);
    hashAddress = addressHasher(secret);
    if (work)
      await startWorking(
        boss,
        { db: database.db, boss, logger, site, mailer, env, storage, mediaLinks: links, models, settings },
        env.WORKER_CONCURRENCY,
        logger,
      );
  } catch (error) {
    await boss?.stop({ graceful: false, close: true }).catch(() => undefined);
    mailer?.close();
    if (database.kind === "postgres") await forgetProcess(database.db, me);
    await database.close().catch(() => undefined);
    if (error instanceof DatabaseStartError || error instanceof EnvError) throw error;
    throw new DatabaseStartError(`Cannot prepare the database: ${(error as Error).message}`);
  }
  const alive = database.kind === "postgres" ? keepProcessAlive(database.db, me, logger) : undefined;
  const readyBoss = boss;
  const stripe = await createStripeClient(env);
  settings.start();
  models.start();
  let closed = false;
  return {
    env,
    site,
    logger,
    database,
    boss: readyBoss,
    auth,
    mailer,
    storage,
    stripe,
    settings,
    models,
    secrets,
    publicPages,
    mediaLinks: links,
    hashAddress,
    working: work,
    afterAdminCommand: [() => settings.refresh(), () => models.refresh()],
    process: me,
    async close() {
      if (closed) return;
      closed = true;
      settings.stop();
      models.stop();
      // Running jobs get the shutdown window to finish; unfinished ones are retried by another worker.
      await readyBoss
        .stop({ graceful: true, close: true, timeout: env.SHUTDOWN_TIMEOUT_SECONDS * 1000 })
        .catch((error: Error) => logger.warn({ err: error.message }, "job queue did not stop cleanly"));
      mailer.close();
      await alive?.stop();
      await database.close();
    },
  };
}
