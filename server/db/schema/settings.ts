import { integer, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/** Installation-wide values written by the seed step and the admin console. */
export const appSetting = pgTable("app_setting", {
  key: text("key").primaryKey(),
  value: jsonb("value").notNull(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});

/**
 * The web and worker processes running on this database, each refreshing `seenAt` while it runs: a process that
 * starts with settings that disagree with the recorded ones is refused while others are running, and may change
 * them when it is alone. A row whose process was killed goes stale and is removed later.
 */
export const atelierProcess = pgTable("atelier_process", {
  id: text("id").primaryKey(),
  role: text("role").notNull(),
  host: text("host").notNull(),
  pid: integer("pid").notNull(),
  build: text("build").notNull(),
  startedAt: timestamp("started_at", { withTimezone: true }).notNull().defaultNow(),
  seenAt: timestamp("seen_at", { withTimezone: true }).notNull().defaultNow(),
});
