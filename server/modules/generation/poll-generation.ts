import { and, eq, sql } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { preparedPerDatabase } from "#server/db/prepared.ts";
import { generation } from "#server/db/schema/index.ts";
import type { Env } from "#server/env.ts";
import {
  keyHashOf,
  keyUse,
  keyUseFields,
  verdictOf,
  verifyApiKey,
  type VerifiedKey,
} from "#server/modules/api-keys/verify-api-key.ts";
import { isUuid } from "#common/ids.ts";
import { assetsOfGeneration, viewOfGeneration, type GenerationView } from "./get-generation.ts";

/** The key's use counted and its owner's generation read, in one statement. */
const countAndRead = preparedPerDatabase((db) => {
  const use = keyUse(db);
  return db
    .with(use)
    .select({ key: keyUseFields(use), g: generation, assets: assetsOfGeneration })
    .from(use)
    .leftJoin(generation, and(eq(generation.id, sql.placeholder("id")), eq(generation.userId, use.userId)))
    .prepare("atelier_poll_generation");
});

/**
 * A status poll through the public API, in one round trip to the database: the key is checked and its use counted
 * (as `verifyApiKey` does) and the generation of the key's owner read in the same statement. `generation` is null
 * when the owner has none with this id; the key's refusals are thrown as `verifyApiKey` throws them.
 */
export async function pollGeneration(options: {
  db: Db;
  env: Env;
  secret: string;
  limitPerMinute: number;
  id: string;
}): Promise<{ key: VerifiedKey; generation: GenerationView | null }> {
  if (!isUuid(options.id)) {
    return {
      key: await verifyApiKey({ db: options.db, secret: options.secret, limitPerMinute: options.limitPerMinute }),
      generation: null,
    };
  }
  const hash = keyHashOf(options.secret);
  const [row] = await countAndRead(options.db).execute({ hash, id: options.id });
  const key = await verdictOf(options.db, hash, row?.key, options.limitPerMinute);
  if (!row?.g || !key.allowed) return { key, generation: null };
  return { key, generation: await viewOfGeneration(options.db, options.env, row.g, row.assets, true) };
}
