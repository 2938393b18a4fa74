import { desc, eq, sql } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { promptRefusal, user } from "#server/db/schema/index.ts";
import type { SafetyFinding } from "#common/safety.ts";

export interface RefusalRow {
  id: string;
  userId: string;
  email: string;
  source: string;
  modelId: string;
  prompt: string;
  level: string;
  findings: SafetyFinding[];
  createdAt: string;
}

/** One page of the prompts the checks refused before anything was held, the newest first, with who sent them. */
export async function listPromptRefusals({
  db,
  page,
  pageSize,
}: {
  db: Db;
  page: number;
  pageSize: number;
}): Promise<{ rows: RefusalRow[]; total: number }> {
  const [rows, [counted]] = await Promise.all([
    db
      .select({
        id: promptRefusal.id,
        userId: promptRefusal.userId,
        email: user.email,
        source: promptRefusal.source,
        modelId: promptRefusal.modelId,
        prompt: promptRefusal.prompt,
        level: promptRefusal.level,
        findings: promptRefusal.findings,
        createdAt: sql<string>`${promptRefusal.createdAt}`,
      })
      .from(promptRefusal)
      .innerJoin(user, eq(user.id, promptRefusal.userId))
      .orderBy(desc(promptRefusal.createdAt), desc(promptRefusal.id))
      .limit(pageSize)
      .offset((page - 1) * pageSize),
    db.select({ total: sql<number>`count(*)::int` }).from(promptRefusal),
  ]);
  return {
    total: counted?.total ?? 0,
    rows: rows.map((r) => ({ ...r, createdAt: new Date(r.createdAt).toISOString() })),
  };
}
