import { EnvError, type Env } from "#server/env.ts";
import { createLocalStorage } from "./local.ts";
import { createS3Storage } from "./s3.ts";
import type { Storage } from "./storage.ts";

export type { ByteRange, Storage, StoredBody } from "./storage.ts";

/** The bucket when S3_BUCKET is set, otherwise the disk under DATA_DIR. */
export function createStorage(env: Env): Storage {
  if (!env.S3_BUCKET) return createLocalStorage(env.DATA_DIR);
  if (Boolean(env.S3_ACCESS_KEY_ID) !== Boolean(env.S3_SECRET_ACCESS_KEY)) {
    const [set, unset] = env.S3_ACCESS_KEY_ID
      ? ["S3_ACCESS_KEY_ID", "S3_SECRET_ACCESS_KEY"]
      : ["S3_SECRET_ACCESS_KEY", "S3_ACCESS_KEY_ID"];
    throw new EnvError(`Invalid environment variable ${unset}: expected a value when ${set} is set (missing)`);
  }
  return createS3Storage({
    bucket: env.S3_BUCKET,
    region: env.S3_REGION,
    endpoint: env.S3_ENDPOINT,
    accessKeyId: env.S3_ACCESS_KEY_ID,
    secretAccessKey: env.S3_SECRET_ACCESS_KEY,
    // A custom endpoint is almost always MinIO or another self-hosted server, where host-style buckets need DNS
    // set up; R2 accepts both.
    forcePathStyle: env.S3_FORCE_PATH_STYLE ?? env.S3_ENDPOINT !== undefined,
  });
}
