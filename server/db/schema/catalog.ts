import { boolean, integer, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/**
 * A provider connection an operator added (the environment's are built in and not kept here): its provider, its
 * settings without secrets, and its secrets as one sealed JSON object (AES-256-GCM, see secret-box.ts).
 */
export const providerConnection = pgTable("provider_connection", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  provider: text("provider").notNull(),
  settings: jsonb("settings").$type<Record<string, unknown>>().notNull(),
  sealedSecrets: text("sealed_secrets"),
  /** The last four characters of each secret, to tell keys apart without showing them. */
  secretHints: jsonb("secret_hints").$type<Record<string, string>>().notNull().default({}),
  enabled: boolean("enabled").notNull().default(true),
  /**
   * Its base URL may be on the operator's own network (a GPU box, Ollama on this machine) or plain http: said
   * explicitly when the connection is added; otherwise only https on public addresses is accepted.
   */
  allowPrivateNetwork: boolean("allow_private_network").notNull().default(false),
  /** Failover order among a provider's connections (lower first; the environment's come before every row). */
  position: integer("position").notNull().default(0),
  checkedAt: timestamp("checked_at", { withTimezone: true }),
  checkOk: boolean("check_ok"),
  checkMessage: text("check_message"),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});

/**
 * A model of the catalog as operators changed or added it: for a built-in model (same id as in the code's catalog)
 * only the fields that differ, for an added one the whole definition. Merged over the built-ins by id.
 */
export const catalogModel = pgTable("catalog_model", {
  id: text("id").primaryKey(),
  definition: jsonb("definition").$type<Record<string, unknown>>().notNull(),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});
