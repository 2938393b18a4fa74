import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { apiKey } from "#server/db/schema/index.ts";
import { createApiKey } from "#server/modules/api-keys/create-api-key.ts";
import { verifyApiKey } from "#server/modules/api-keys/verify-api-key.ts";
import { MAX_API_KEYS, hashApiKey } from "#server/modules/api-keys/keys.ts";
import type { AppError } from "#server/errors.ts";
import { backends, insertUser, migratedDatabase } from "#tests/support/backends.ts";

describe.each(backends)("API keys on $name", (backend) => {
  const db = migratedDatabase(backend);

  const newUser = () => insertUser(db(), "Dev");

  it("stores only a hash and a short visible prefix, never the secret", async () => {
    const userId = await newUser();
    const { key, secret } = await createApiKey({ db: db(), userId, input: { name: "  Production  " } });
    expect(secret).toMatch(/^atl_[A-Za-z0-9_-]{43}$/);
    expect(key).toMatchObject({ name: "Production", status: "active", requestCount: 0, lastUsedAt: null });
    const rows = await db().select().from(apiKey);
    const stored = JSON.stringify(rows);
    expect(stored).not.toContain(secret);
    expect(stored).not.toContain(secret.slice(12));
    expect(rows.find((r) => r.id === key.id)).toMatchObject({
      keyHash: hashApiKey(secret),
      prefix: secret.slice(0, 12),
    });
  });

  it("allows at most 20 keys per user, even when created all at once", async () => {
    const userId = await newUser();
    const results = await Promise.allSettled(
      Array.from({ length: MAX_API_KEYS + 5 }, () => createApiKey({ db: db(), userId, input: {} })),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(MAX_API_KEYS);
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    expect(refused).toHaveLength(5);
    for (const r of refused) expect((r.reason as AppError).code).toBe("api_key_limit");
  });

  it("refuses names over 64 characters and bad secrets without a query reaching a key", async () => {
    const userId = await newUser();
    await expect(createApiKey({ db: db(), userId, input: { name: "n".repeat(65) } })).rejects.toMatchObject({
      code: "api_key_name_invalid",
    });
    await expect(createApiKey({ db: db(), userId, input: { name: 5 } })).rejects.toMatchObject({
      code: "api_key_name_invalid",
    });
    for (const secret of ["", "sk_test_123", "atl_short", `atl_${"x".repeat(42)}'`]) {
      await expect(verifyApiKey({ db: db(), secret, limits: { perKey: 60, perAccount: 120 } })).rejects.toMatchObject({
        code: "invalid_api_key",
      });
    }
  });

  it("counts concurrent requests exactly against the window and the total", async () => {
    const userId = await newUser();
    const { key, secret } = await createApiKey({ db: db(), userId, input: {} });
    const verdicts = await Promise.all(
      Array.from({ length: 30 }, () => verifyApiKey({ db: db(), secret, limits: { perKey: 25, perAccount: 1000 } })),
    );
    expect(verdicts.filter((v) => v.allowed)).toHaveLength(25);
    expect(new Set(verdicts.filter((v) => v.allowed).map((v) => v.remaining)).size).toBe(25);
    const [row] = await db().select().from(apiKey).where(eq(apiKey.id, key.id));
    expect(row).toMatchObject({ requestCount: 30, windowCount: 30 });
    expect(row!.lastUsedAt).toBeInstanceOf(Date);
  });

  it("counts an account's requests over all its keys, and says which limit refused", async () => {
    const userId = await newUser();
    const secrets = await Promise.all(
      Array.from({ length: 3 }, async () => (await createApiKey({ db: db(), userId, input: {} })).secret),
    );
    const limits = { perKey: 10, perAccount: 15 };
    const verdicts = await Promise.all(
      Array.from({ length: 27 }, (_, i) => verifyApiKey({ db: db(), secret: secrets[i % 3]!, limits })),
    );
    // Nine a key is within each key's limit: only the account's, 15 over the three, refuses.
    expect(verdicts.filter((v) => v.allowed)).toHaveLength(15);
    const refused = verdicts.filter((v) => !v.allowed);
    expect(refused.every((v) => v.refusedBy === "account" && v.remaining === 0 && v.resetSeconds > 0)).toBe(true);
    // Another account's keys are not touched.
    const other = await createApiKey({ db: db(), userId: await newUser(), input: {} });
    expect(await verifyApiKey({ db: db(), secret: other.secret, limits })).toMatchObject({ allowed: true });
    // A key past its own limit says so.
    const single = await createApiKey({ db: db(), userId: await newUser(), input: {} });
    const own = await Promise.all(
      Array.from({ length: 12 }, () => verifyApiKey({ db: db(), secret: single.secret, limits })),
    );
    expect(own.filter((v) => v.refusedBy === "key")).toHaveLength(2);
  });
});
