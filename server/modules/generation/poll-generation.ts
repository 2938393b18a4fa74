import { and, eq, sql } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { preparedPerDatabase } from "#server/db/prepared.ts";
import { generation } from "#server/db/schema/index.ts";
import type { Env } from "#server/env.ts";
import {
  apiUse,
  keyHashOf,
  verdictOf,
  verifyApiKey,
  type ApiLimits,
  type VerifiedKey,
} from "#server/modules/api-keys/verify-api-key.ts";
import { isUuid } from "#common/ids.ts";
import { assetsOfGeneration, viewOfGeneration, type GenerationView } from "./get-generation.ts";

/** The key's use counted and its owner's generation read, in one statement. */
const countAndRead = preparedPerDatabase((db) => {
  const use = apiUse(db);
  return db
    .with(use.key, use.account)
    .select({ key: use.fields, g: generation, assets: assetsOfGeneration })
    .from(use.key)
    .leftJoin(use.account, sql`true`)
    .leftJoin(generation, and(eq(generation.id, sql.placeholder("id")), eq(generation.userId, use.key.userId)))
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
  limits: ApiLimits;
  id: string;
}): Promise<{ key: VerifiedKey; generation: GenerationView | null }> {
  if (!isUuid(options.id)) {
    return {
      key: await verifyApiKey({ db: options.db, secret: options.secret, limits: options.limits }),
      generation: null,
    };
  }
  const hash = keyHashOf(options.secret);
  const [row] = await countAndRead(options.db).execute({ hash, id: options.id });
  const key = await verdictOf(options.db, hash, row?.key, options.limits);
  if (!row?.g || !key.allowed) return { key, generation: null };
  return { key, generation: await viewOfGeneration(options.db, options.env, row.g, row.assets, true) };
}
