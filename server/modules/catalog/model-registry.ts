import type { Logger } from "pino";
import type { Db } from "#server/db/client.ts";
import type { Env } from "#server/env.ts";
import { catalogModel, providerConnection } from "#server/db/schema/index.ts";
import type { CatalogModel } from "#config/models.ts";
import type { ChatModel } from "#config/chat-models.ts";
import { providerDefinition } from "#server/providers/registry.ts";
import type { ProviderDefinition } from "#server/providers/definition.ts";
import {
  buildCatalog,
  chatModelOf,
  mediaModelOf,
  type Catalog,
  type CatalogEntry,
  type Connection,
  type ConnectionRow,
} from "./catalog.ts";
import { SecretUnreadable, type SecretBox } from "./secret-box.ts";

/** How often a process reads the catalog again, for the changes made by another process. */
const REFRESH_MS = 10_000;

/** Who asks: administrators are also offered the models visible to them only. */
export interface Viewer {
  admin?: boolean;
}

/**
 * The one place anything asks for models and provider connections: the built-in catalog and the environment's
 * connections, with what operators changed and added in the console or on the command line. Held in memory (pages
 * and the status poll read it on every request), read again after a change made here and every few seconds for one
 * made by another process.
 */
export class ModelRegistry {
  #catalog: Catalog;
  #fingerprint = "";
  #timer: NodeJS.Timeout | undefined;
  readonly #listeners = new Set<() => void>();

  private readonly env: Env;
  private readonly source?: { db: Db; box: SecretBox; logger: Logger };

  constructor(env: Env, source?: { db: Db; box: SecretBox; logger: Logger }) {
    this.env = env;
    this.source = source;
    this.#catalog = buildCatalog({ env, connections: [], models: [] });
  }

  /** A registry of the built-in catalog and the environment's connections only (no database). */
  static builtIn(env: Env): ModelRegistry {
    return new ModelRegistry(env);
  }

  /** Offered image and video models, in order. */
  media(viewer: Viewer = {}): CatalogModel[] {
    return this.#visible(this.#catalog.media, viewer);
  }

  /** An offered image or video model. */
  findMedia(id: string, viewer: Viewer = {}): CatalogModel | undefined {
    return this.#visible(this.#catalog.media, viewer, id)[0];
  }

  /** Offered chat models, in order. */
  chat(viewer: Viewer = {}): ChatModel[] {
    return this.#visible(this.#catalog.chat, viewer);
  }

  findChat(id: string, viewer: Viewer = {}): ChatModel | undefined {
    return this.#visible(this.#catalog.chat, viewer, id)[0];
  }

  /** The offered models `viewer` may see (the one with `id`, when given): administrators see those kept for them. */
  #visible<M extends { id: string }>(models: M[], viewer: Viewer, id?: string): M[] {
    const { adminOnly } = this.#catalog;
    if (id === undefined && (viewer.admin || adminOnly.size === 0)) return models;
    return models.filter((m) => (id === undefined || m.id === id) && (viewer.admin || !adminOnly.has(m.id)));
  }

  /** Every model of the catalog, offered or not, with its source and state (the console, `models list`). */
  entries(): CatalogEntry[] {
    return this.#catalog.entries;
  }

  entry(id: string): CatalogEntry | undefined {
    return this.#catalog.entries.find((e) => e.id === id);
  }

  /** An image or video model of the catalog, offered or not (a health test, the console). */
  anyMedia(id: string): CatalogModel | undefined {
    const e = this.entry(id);
    return e && e.definition.kind !== "chat" ? mediaModelOf(e) : undefined;
  }

  /** A chat model of the catalog, offered or not (the names of past conversations). */
  anyChat(id: string): ChatModel | undefined {
    const e = this.entry(id);
    return e && e.definition.kind === "chat" ? chatModelOf(e) : undefined;
  }

  /** A model's name, offered or not (histories name the models of past jobs). */
  nameOf(id: string): string {
    return this.entry(id)?.definition.name ?? id;
  }

  /** Every connection, the environment's first (their secrets stay on the server). */
  connections(): Connection[] {
    return this.#catalog.connections;
  }

  /** A connection that can serve, with its provider's definition, to make a model with. */
  connection(id: string): { definition: ProviderDefinition; settings: unknown } | undefined {
    const connection = this.#catalog.connections.find((c) => c.id === id);
    if (!connection || !connection.enabled || connection.problem || !connection.settings) return undefined;
    return { definition: providerDefinition(connection.provider), settings: connection.settings };
  }

  /** Calls `listener` whenever the catalog changes (to forget pages rendered with the old one). */
  onChange(listener: () => void): void {
    this.#listeners.add(listener);
  }

  async refresh(): Promise<void> {
    if (!this.source) return;
    const { db, box, logger } = this.source;
    const [connectionRows, modelRows] = await Promise.all([
      db.select().from(providerConnection),
      db.select({ id: catalogModel.id, definition: catalogModel.definition }).from(catalogModel),
    ]);
    const fingerprint = JSON.stringify([connectionRows, modelRows]);
    if (fingerprint === this.#fingerprint) return;
    const connections = connectionRows.map((row): ConnectionRow => {
      let secrets: Record<string, unknown> = {};
      let readable = true;
      if (row.sealedSecrets) {
        try {
          secrets = JSON.parse(box.open(row.sealedSecrets)) as Record<string, unknown>;
        } catch (error) {
          if (!(error instanceof SecretUnreadable)) throw error;
          readable = false;
          logger.warn({ connection: row.id, err: error.message }, "connection's key cannot be opened");
        }
      }
      return {
        id: row.id,
        name: row.name,
        provider: row.provider,
        enabled: row.enabled,
        position: row.position,
        settings: readable ? { ...row.settings, ...secrets } : null,
        secretHints: row.secretHints,
        allowPrivateNetwork: row.allowPrivateNetwork,
        check:
          row.checkedAt && row.checkOk !== null
            ? { at: row.checkedAt.toISOString(), ok: row.checkOk, message: row.checkMessage }
            : undefined,
      };
    });
    this.#catalog = buildCatalog({
      env: this.env,
      connections,
      models: modelRows,
      onInvalid: (id, problem) => logger.warn({ model: id, problem }, "model row not valid: left out"),
    });
    this.#fingerprint = fingerprint;
    for (const listener of this.#listeners) listener();
  }

  start(): void {
    if (!this.source) return;
    const { logger } = this.source;
    this.#timer = setInterval(() => {
      this.refresh().catch((error: Error) => logger.warn({ err: error.message }, "catalog not read again"));
    }, REFRESH_MS);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}
