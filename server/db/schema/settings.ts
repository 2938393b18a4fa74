import { jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/** Installation-wide values written by the seed step and the admin console. */
export const appSetting = pgTable("app_setting", {
  key: text("key").primaryKey(),
  value: jsonb("value").notNull(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});
