import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GetObjectCommand, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { EnvError, parseEnv } from "#server/env.ts";
import { createStorage } from "#server/storage/index.ts";
import { createLocalStorage } from "#server/storage/local.ts";
import { createS3Storage } from "#server/storage/s3.ts";
import type { Storage, StoredBody } from "#server/storage/storage.ts";
import { S3_TEST, startFakeS3, type FakeS3 } from "#tests/fakes/s3.ts";

/** Every byte value, so nothing on the way may treat the body as text. */
const BYTES = Uint8Array.from({ length: 300 }, (_, i) => (i * 7 + 3) % 256);

const bytesOf = async (read: StoredBody | null) => {
  if (!read) throw new Error("expected an object");
  return new Uint8Array(await new Response(read.body).arrayBuffer());
};

let fake: FakeS3;
const temps: string[] = [];
const tempDir = async () => {
  const dir = await mkdtemp(join(tmpdir(), "atelier-storage-"));
  temps.push(dir);
  return dir;
};

beforeAll(async () => {
  fake = await startFakeS3();
});
afterAll(async () => {
  await fake.close();
  await Promise.all(temps.map((dir) => rm(dir, { recursive: true, force: true })));
});
afterEach(() => {
  fake.outage = false;
  fake.flaky = 0;
});

const s3Options = () => ({
  bucket: S3_TEST.bucket,
  region: S3_TEST.region,
  endpoint: fake.url,
  accessKeyId: S3_TEST.accessKeyId,
  secretAccessKey: S3_TEST.secretAccessKey,
  forcePathStyle: true,
});

const adapters: Array<{ name: string; create: () => Promise<Storage> }> = [
  { name: "local", create: async () => createLocalStorage(await tempDir()) },
  { name: "s3", create: async () => createS3Storage(s3Options()) },
];

describe.each(adapters)("$name storage", ({ name, create }) => {
  let storage: Storage;
  beforeAll(async () => {
    storage = await create();
  });

  it("reports its kind and serves objects under /files/", () => {
    expect(storage.kind).toBe(name);
    expect(storage.url("media/u1/out.png")).toBe("/files/media/u1/out.png");
  });

  it("returns what was put, with its type and size", async () => {
    await storage.put("media/u1/round-trip.png", BYTES, "image/png");
    const read = await storage.get("media/u1/round-trip.png");
    expect(read?.size).toBe(BYTES.length);
    expect(read?.contentType).toBe("image/png");
    expect(read?.range).toBeUndefined();
    expect(await bytesOf(read)).toEqual(BYTES);
  });

  it("replaces an object written again under the same key", async () => {
    await storage.put("media/u1/again.json", new TextEncoder().encode('{"v":1}'), "application/json");
    await storage.put("media/u1/again.json", new TextEncoder().encode('{"v":22}'), "application/json");
    const read = await storage.get("media/u1/again.json");
    expect(new TextDecoder().decode(await bytesOf(read))).toBe('{"v":22}');
    expect(read?.size).toBe(8);
  });

  it.each([
    ["the first bytes", 0, 9],
    ["the middle", 100, 199],
    ["the last byte", BYTES.length - 1, BYTES.length - 1],
  ])("reads a byte range: %s", async (_, start, end) => {
    await storage.put("media/u1/ranged.mp4", BYTES, "video/mp4");
    const read = await storage.get("media/u1/ranged.mp4", { start, end });
    expect(read?.size).toBe(BYTES.length);
    expect(read?.range).toEqual({ start, end });
    expect(read?.contentType).toBe("video/mp4");
    expect(await bytesOf(read)).toEqual(BYTES.slice(start, end + 1));
  });

  it("stats an object", async () => {
    await storage.put("avatars/u1/a.webp", BYTES.slice(0, 42), "image/webp");
    expect(await storage.stat("avatars/u1/a.webp")).toEqual({ size: 42, contentType: "image/webp" });
  });

  it("answers null for a missing object", async () => {
    expect(await storage.get("media/nobody/missing.png")).toBeNull();
    expect(await storage.get("media/nobody/missing.png", { start: 0, end: 9 })).toBeNull();
    expect(await storage.stat("media/nobody/missing.png")).toBeNull();
  });

  it("deletes an object, and deleting a missing one is fine", async () => {
    await storage.put("media/u1/gone.gif", BYTES, "image/gif");
    await storage.delete("media/u1/gone.gif");
    expect(await storage.get("media/u1/gone.gif")).toBeNull();
    expect(await storage.stat("media/u1/gone.gif")).toBeNull();
    await expect(storage.delete("media/u1/gone.gif")).resolves.toBeUndefined();
  });

  it.each(["../x.png", "/abs.png", "a//b.png", "noextension", "a/../../b.png"])(
    "refuses the key %j before touching the storage: writes and deletes throw, reads find nothing",
    async (key) => {
      const seen = fake.requests.length;
      await expect(storage.put(key, BYTES, "image/png")).rejects.toThrow(/invalid storage key/);
      await expect(storage.delete(key)).rejects.toThrow(/invalid storage key/);
      expect(await storage.get(key)).toBeNull();
      expect(await storage.stat(key)).toBeNull();
      expect(fake.requests.length).toBe(seen);
    },
  );

  it("passes its health check", async () => {
    expect(await storage.check()).toBe(true);
  });
});

describe("s3 storage against the fake", () => {
  it("keeps objects in the bucket under their keys, with path-style requests", async () => {
    await createS3Storage(s3Options()).put("media/u2/kept.png", BYTES, "image/png");
    const object = fake.objects.get("media/u2/kept.png");
    expect(object?.contentType).toBe("image/png");
    expect(new Uint8Array(object?.body ?? [])).toEqual(BYTES);
  });

  it("leaves no health-check objects behind", async () => {
    expect(await createS3Storage(s3Options()).check()).toBe(true);
    expect([...fake.objects.keys()].filter((key) => key.startsWith("health/"))).toEqual([]);
  });

  it("fails with a wrong secret: the health check is false and writes are refused", async () => {
    const storage = createS3Storage({ ...s3Options(), secretAccessKey: "not-the-secret" });
    expect(await storage.check()).toBe(false);
    await expect(storage.put("media/u2/denied.png", BYTES, "image/png")).rejects.toMatchObject({
      name: "SignatureDoesNotMatch",
    });
    expect(fake.objects.has("media/u2/denied.png")).toBe(false);
  });

  it("fails with an unknown access key", async () => {
    const storage = createS3Storage({ ...s3Options(), accessKeyId: "AKIAUNKNOWN000000000" });
    await expect(storage.stat("media/u2/any.png")).rejects.toThrow();
    await expect(storage.get("media/u2/any.png")).rejects.toMatchObject({ name: "InvalidAccessKeyId" });
  });

  it("does not mistake a missing bucket for a missing file", async () => {
    const storage = createS3Storage({ ...s3Options(), bucket: "no-such-bucket" });
    await expect(storage.get("media/u2/any.png")).rejects.toMatchObject({ name: "NoSuchBucket" });
    expect(await storage.check()).toBe(false);
  });

  it("rides out a transient 503 and reports a lasting outage", async () => {
    const storage = createS3Storage(s3Options());
    fake.flaky = 1;
    await storage.put("media/u2/flaky.png", BYTES, "image/png");
    expect(fake.objects.has("media/u2/flaky.png")).toBe(true);

    fake.outage = true;
    const before = fake.requests.length;
    await expect(storage.get("media/u2/flaky.png")).rejects.toMatchObject({ name: "ServiceUnavailable" });
    // A small, bounded number of tries, not an unbounded wait.
    expect(fake.requests.length - before).toBe(3);
    expect(await storage.check()).toBe(false);

    fake.outage = false;
    expect(await bytesOf(await storage.get("media/u2/flaky.png"))).toEqual(BYTES);
  });

  it("clamps a range that runs past the end, as S3 does", async () => {
    const storage = createS3Storage(s3Options());
    await storage.put("media/u2/short.mp4", BYTES.slice(0, 50), "video/mp4");
    const read = await storage.get("media/u2/short.mp4", { start: 40, end: 999 });
    expect(read?.range).toEqual({ start: 40, end: 49 });
    expect(await bytesOf(read)).toEqual(BYTES.slice(40, 50));
  });

  it("keeps the bucket private: unsigned requests are refused", async () => {
    await createS3Storage(s3Options()).put("media/u2/private.png", BYTES, "image/png");
    const response = await fetch(`${fake.url}/${S3_TEST.bucket}/media/u2/private.png`);
    expect(response.status).toBe(403);
    expect(await response.text()).toContain("<Code>AccessDenied</Code>");
  });

  describe("the fake checks Signature Version 4 for real", () => {
    /** A real SDK client whose signed request is altered on its way out, after signing. */
    const tamperedClient = (tamper: (request: { headers: Record<string, string>; body?: unknown }) => void) => {
      const client = new S3Client({
        region: S3_TEST.region,
        endpoint: fake.url,
        forcePathStyle: true,
        credentials: { accessKeyId: S3_TEST.accessKeyId, secretAccessKey: S3_TEST.secretAccessKey },
        maxAttempts: 1,
      });
      client.middlewareStack.add(
        (next) => (args) => {
          tamper(args.request as { headers: Record<string, string>; body?: unknown });
          return next(args);
        },
        { step: "deserialize", name: "tamperAfterSigning" },
      );
      return client;
    };
    const put = (client: S3Client, key: string) =>
      client.send(new PutObjectCommand({ Bucket: S3_TEST.bucket, Key: key, Body: BYTES, ContentType: "image/png" }));

    it("accepts the untouched request", async () => {
      await put(
        tamperedClient(() => undefined),
        "media/u3/ok.png",
      );
      const out = await tamperedClient(() => undefined).send(
        new GetObjectCommand({ Bucket: S3_TEST.bucket, Key: "media/u3/ok.png" }),
      );
      expect(await out.Body?.transformToByteArray()).toEqual(BYTES);
    });

    it.each([
      [
        "a changed signature",
        (r: { headers: Record<string, string> }) => {
          const auth = r.headers.authorization!;
          r.headers.authorization = auth.slice(0, -1) + (auth.endsWith("0") ? "1" : "0");
        },
        "SignatureDoesNotMatch",
      ],
      [
        "a changed signed header",
        (r: { headers: Record<string, string> }) => {
          r.headers["content-type"] = "text/html";
        },
        "SignatureDoesNotMatch",
      ],
      [
        "a changed body",
        (r: { headers: Record<string, string>; body?: unknown }) => {
          r.body = BYTES.slice().reverse();
        },
        "XAmzContentSHA256Mismatch",
      ],
    ])("refuses %s", async (_, tamper, code) => {
      await expect(put(tamperedClient(tamper), "media/u3/tampered.png")).rejects.toMatchObject({ name: code });
      expect(fake.objects.has("media/u3/tampered.png")).toBe(false);
    });
  });
});

describe("createStorage", () => {
  it("uses the disk under DATA_DIR without S3_BUCKET", async () => {
    const dir = await tempDir();
    const storage = createStorage(parseEnv({ DATA_DIR: dir }));
    expect(storage.kind).toBe("local");
    await storage.put("media/u4/local.txt", new TextEncoder().encode("on disk"), "text/plain");
    expect(await readFile(join(dir, "files/media/u4/local.txt"), "utf8")).toBe("on disk");
  });

  it("uses the bucket when S3_BUCKET is set, path-style by default with an endpoint", async () => {
    const storage = createStorage(
      parseEnv({
        S3_BUCKET: S3_TEST.bucket,
        S3_ENDPOINT: fake.url,
        S3_REGION: S3_TEST.region,
        S3_ACCESS_KEY_ID: S3_TEST.accessKeyId,
        S3_SECRET_ACCESS_KEY: S3_TEST.secretAccessKey,
      }),
    );
    expect(storage.kind).toBe("s3");
    await storage.put("media/u4/remote.png", BYTES, "image/png");
    expect(fake.objects.get("media/u4/remote.png")?.body.length).toBe(BYTES.length);
    expect(fake.requests.at(-1)).toMatchObject({ method: "PUT", key: "media/u4/remote.png", status: 200 });
    expect(await storage.check()).toBe(true);
  });

  it("names the missing half of an S3 key pair", () => {
    const halfPair = () => createStorage(parseEnv({ S3_BUCKET: S3_TEST.bucket, S3_ACCESS_KEY_ID: "AKIA0" }));
    expect(halfPair).toThrow(EnvError);
    expect(halfPair).toThrow(/^Invalid environment variable S3_SECRET_ACCESS_KEY:/);
  });
});
