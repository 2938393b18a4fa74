import { desc, eq } from "drizzle-orm";
import type { SafetyLevel } from "#common/safety.ts";
import type { Db } from "#server/db/client.ts";
import { apiKey } from "#server/db/schema/index.ts";

export interface ApiKeyView {
  id: string;
  name: string | null;
  /** The visible start of the secret (`atl_` and 8 characters). */
  prefix: string;
  status: "active" | "inactive";
  requestCount: number;
  lastUsedAt: string | null;
  createdAt: string;
  /** The checks an administrator chose for its requests; null follows each model's. */
  safetyLevel: SafetyLevel | null;
}

export const apiKeyColumns = {
  id: apiKey.id,
  name: apiKey.name,
  prefix: apiKey.prefix,
  status: apiKey.status,
  requestCount: apiKey.requestCount,
  lastUsedAt: apiKey.lastUsedAt,
  createdAt: apiKey.createdAt,
  safetyLevel: apiKey.safetyLevel,
};

export function presentApiKey(row: {
  [K in keyof typeof apiKeyColumns]: (typeof apiKey.$inferSelect)[K];
}): ApiKeyView {
  return {
    ...row,
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
  };
}

/** The user's keys, newest first; never their secrets, which are not stored. */
export async function listApiKeys({ db, userId }: { db: Db; userId: string }): Promise<ApiKeyView[]> {
  const rows = await db
    .select(apiKeyColumns)
    .from(apiKey)
    .where(eq(apiKey.userId, userId))
    .orderBy(desc(apiKey.createdAt), desc(apiKey.id));
  return rows.map(presentApiKey);
}
