import { randomUUID } from "node:crypto";
import type * as S3Sdk from "@aws-sdk/client-s3";
import { contentTypeOf } from "./local.ts";
import { FILES_PREFIX, isStorageKey, type ByteRange, type Storage, type StoredBody } from "./storage.ts";

export interface S3StorageOptions {
  bucket: string;
  /** "auto" for Cloudflare R2. */
  region: string;
  /** Any S3-compatible server (R2, MinIO, ...); AWS S3 when unset. */
  endpoint?: string;
  /** Without a key pair the SDK's default chain applies (AWS_* variables, instance or task roles). */
  accessKeyId?: string;
  secretAccessKey?: string;
  /** Bucket in the path rather than in the host name: MinIO and most self-hosted servers need it. */
  forcePathStyle?: boolean;
}

type Sdk = typeof S3Sdk;

// Loaded on first use: the SDK is a few megabytes of modules that processes on local storage never need.
let sdkModule: Promise<Sdk> | undefined;
const loadSdk = () => (sdkModule ??= import("@aws-sdk/client-s3"));

/** Bounds a request waits for: a dead endpoint must fail a health check, not hang it. */
const CONNECT_TIMEOUT_MS = 5_000;
/** Until the response headers, so it covers uploading the body; a long download is bounded by the idle timeout. */
const REQUEST_TIMEOUT_MS = 60_000;
const IDLE_TIMEOUT_MS = 60_000;
/** The first try and two retries, for the 5xx and throttling answers S3 documents as transient. */
const MAX_ATTEMPTS = 3;
const CHECK_BUDGET_MS = 15_000;

const CONTENT_RANGE = /^bytes (\d+)-(\d+)\/(\d+)$/;

interface SdkError {
  name?: string;
  $metadata?: { httpStatusCode?: number };
}

/** HEAD answers carry no body, so a missing object there is only "NotFound" or a bare 404. */
function isMissing(error: unknown): boolean {
  const { name, $metadata } = (error ?? {}) as SdkError;
  if (name === "NoSuchKey" || name === "NotFound") return true;
  return $metadata?.httpStatusCode === 404 && name !== "NoSuchBucket";
}

/**
 * Writes and deletes refuse a bad key loudly; reads answer null like the local adapter, since a key taken from a
 * URL that cannot name an object is simply not found.
 */
function checkKey(key: string): void {
  if (!isStorageKey(key)) throw new Error(`invalid storage key ${key}`);
}

/**
 * Objects in an S3-compatible bucket (AWS S3, Cloudflare R2, MinIO). The bucket stays private: the app serves
 * and authorises every file under the same `/files/<key>` path as on local disk.
 */
export function createS3Storage(options: S3StorageOptions): Storage {
  const { bucket, accessKeyId, secretAccessKey } = options;
  if (Boolean(accessKeyId) !== Boolean(secretAccessKey)) {
    throw new Error("S3 storage needs both an access key id and a secret access key, or neither");
  }

  let client: Promise<{ sdk: Sdk; s3: S3Sdk.S3Client }> | undefined;
  const connect = () =>
    (client ??= loadSdk().then((sdk) => ({
      sdk,
      s3: new sdk.S3Client({
        region: options.region,
        endpoint: options.endpoint,
        forcePathStyle: options.forcePathStyle ?? false,
        credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined,
        maxAttempts: MAX_ATTEMPTS,
        requestHandler: {
          connectionTimeout: CONNECT_TIMEOUT_MS,
          requestTimeout: REQUEST_TIMEOUT_MS,
          throwOnRequestTimeout: true,
          socketTimeout: IDLE_TIMEOUT_MS,
        },
        // The SDK's default CRC checksums (aws-chunked uploads, checksum-mode reads) are refused or mishandled
        // by several S3-compatible servers; the signed SHA-256 of each body already guards its integrity.
        requestChecksumCalculation: "WHEN_REQUIRED",
        responseChecksumValidation: "WHEN_REQUIRED",
      }),
    })));

  const put = async (key: string, body: Uint8Array, contentType: string, signal?: AbortSignal) => {
    checkKey(key);
    const { sdk, s3 } = await connect();
    await s3.send(
      new sdk.PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentType: contentType }),
      signal ? { abortSignal: signal } : {},
    );
  };

  const get = async (key: string, range?: ByteRange, signal?: AbortSignal): Promise<StoredBody | null> => {
    if (!isStorageKey(key)) return null;
    const { sdk, s3 } = await connect();
    let out;
    try {
      out = await s3.send(
        new sdk.GetObjectCommand({
          Bucket: bucket,
          Key: key,
          Range: range ? `bytes=${range.start}-${range.end}` : undefined,
        }),
        signal ? { abortSignal: signal } : {},
      );
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
    if (!out.Body) throw new Error(`S3 answered without a body for ${key}`);
    const contentType = out.ContentType ?? contentTypeOf(key);
    const body = out.Body.transformToWebStream() as ReadableStream<Uint8Array>;
    const partial = out.ContentRange ? CONTENT_RANGE.exec(out.ContentRange) : null;
    if (partial) {
      return {
        body,
        size: Number(partial[3]),
        contentType,
        range: { start: Number(partial[1]), end: Number(partial[2]) },
      };
    }
    const size = out.ContentLength ?? 0;
    // A server that ignores Range sends the whole object, which is then the range actually returned.
    return { body, size, contentType, range: range ? { start: 0, end: size - 1 } : undefined };
  };

  const remove = async (key: string, signal?: AbortSignal) => {
    checkKey(key);
    const { sdk, s3 } = await connect();
    try {
      await s3.send(new sdk.DeleteObjectCommand({ Bucket: bucket, Key: key }), signal ? { abortSignal: signal } : {});
    } catch (error) {
      // S3 itself answers 204 for a missing key; some compatible servers answer 404.
      if (!isMissing(error)) throw error;
    }
  };

  return {
    kind: "s3",
    where: `the bucket ${bucket}${options.endpoint ? ` at ${options.endpoint}` : ""}`,
    put: (key, body, contentType) => put(key, body, contentType),
    get: (key, range) => get(key, range),
    async stat(key) {
      if (!isStorageKey(key)) return null;
      const { sdk, s3 } = await connect();
      try {
        const out = await s3.send(new sdk.HeadObjectCommand({ Bucket: bucket, Key: key }));
        return { size: out.ContentLength ?? 0, contentType: out.ContentType ?? contentTypeOf(key) };
      } catch (error) {
        if (isMissing(error)) return null;
        throw error;
      }
    },
    delete: (key) => remove(key),
    async check() {
      const key = `health/${randomUUID()}.txt`;
      const signal = AbortSignal.timeout(CHECK_BUDGET_MS);
      try {
        await put(key, new TextEncoder().encode("ok"), "text/plain", signal);
        const read = await get(key, undefined, signal);
        const ok = read !== null && (await new Response(read.body).text()) === "ok";
        await remove(key, signal);
        return ok;
      } catch {
        return false;
      }
    },
    url: (key) => `${FILES_PREFIX}${key}`,
  };
}
