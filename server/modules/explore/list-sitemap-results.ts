import { asc } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { generation } from "#server/db/schema/index.ts";
import { shownPublicly } from "./shown-publicly.ts";

/**
 * Results per sitemap file. The protocol allows 50,000 addresses and 50 MB a file; each result is written with its
 * eleven alternates (about 1.4 kB), so a file of 5,000 stays near 7 MB, made in one read.
 */
export const RESULTS_PER_SITEMAP = 5_000;

/** One sitemap file's results (`file` from 1), the oldest first so a file's content changes little over time. */
export async function listSitemapResults(options: {
  db: Db;
  file: number;
  perFile?: number;
}): Promise<{ id: string; updatedAt: Date }[]> {
  const perFile = options.perFile ?? RESULTS_PER_SITEMAP;
  return options.db
    .select({ id: generation.id, updatedAt: generation.updatedAt })
    .from(generation)
    .where(shownPublicly)
    .orderBy(asc(generation.createdAt), asc(generation.id))
    .limit(perFile)
    .offset((options.file - 1) * perFile);
}
