import { and, gte, sql } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { generation } from "#server/db/schema/index.ts";

export interface ModelStats {
  modelId: string;
  jobs: number;
  succeeded: number;
  failed: number;
  /** Run time of the successful jobs, in seconds; null without any. */
  p50Seconds: number | null;
  p95Seconds: number | null;
  /** Credits charged for the successful jobs. */
  credits: number;
  /** Units delivered by the successful jobs: images, videos and seconds of video. */
  images: number;
  videos: number;
  videoSeconds: number;
}

const isSucceeded = sql`${generation.status} = 'succeeded'`;
const seconds = (fraction: number) =>
  sql<
    number | null
  >`round((percentile_cont(${sql.raw(String(fraction))}) within group (order by ${generation.durationMs}) filter (where ${isSucceeded}))::numeric / 1000, 1)`.mapWith(
    (v) => (v === null ? null : Number(v)),
  );
const total = (expression: ReturnType<typeof sql>) =>
  sql<number>`coalesce(sum(${expression}) filter (where ${isSucceeded}), 0)`.mapWith(Number);

/** Each model's jobs created since `since`: how many, how they ended, how long they took, what they earned. */
export async function modelStats({ db, since }: { db: Db; since: Date }): Promise<ModelStats[]> {
  return db
    .select({
      modelId: generation.modelId,
      jobs: sql<number>`count(*)`.mapWith(Number),
      succeeded: sql<number>`count(*) filter (where ${isSucceeded})`.mapWith(Number),
      failed: sql<number>`count(*) filter (where ${generation.status} = 'failed')`.mapWith(Number),
      p50Seconds: seconds(0.5),
      p95Seconds: seconds(0.95),
      credits: total(sql`${generation.creditsCharged}`),
      images: total(
        sql`case when ${generation.kind} = 'image' then coalesce((${generation.params}->>'count')::int, 1) else 0 end`,
      ),
      videos: total(sql`case when ${generation.kind} = 'video' then 1 else 0 end`),
      videoSeconds: total(
        sql`case when ${generation.kind} = 'video' then coalesce((${generation.params}->>'duration')::numeric, 0) else 0 end`,
      ),
    })
    .from(generation)
    .where(and(gte(generation.createdAt, since)))
    .groupBy(generation.modelId);
}
