import { randomUUID } from "node:crypto";
import { appSetting } from "#server/db/schema/index.ts";
import type { Db } from "#server/db/client.ts";

/**
 * Idempotent: runs on every start and only fills what is missing, never overwriting an operator's values.
 */
export async function seed(db: Db): Promise<void> {
  await db
    .insert(appSetting)
    .values([
      { key: "instance_id", value: randomUUID() },
      { key: "installed_at", value: new Date().toISOString() },
    ])
    .onConflictDoNothing({ target: appSetting.key });
}
