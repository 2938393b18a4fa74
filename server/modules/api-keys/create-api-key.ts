import { count, eq } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { apiKey, user } from "#server/db/schema/index.ts";
import { AppError } from "#server/errors.ts";
import { createApiKeySchema } from "./schema.ts";
import { currentPlan, requireApiAllowed } from "#server/modules/billing/entitlements.ts";
import type { Locale } from "#common/locales.ts";
import { MAX_API_KEYS, MAX_API_KEY_NAME, VISIBLE_LENGTH, generateApiKey, hashApiKey } from "./keys.ts";
import { apiKeyColumns, presentApiKey, type ApiKeyView } from "./list-api-keys.ts";

/**
 * Makes a key for the user and returns its secret, this once: only its hash is stored. The user's row is locked
 * while counting, so two creations at once cannot pass the limit together.
 */
export async function createApiKey(options: {
  db: Db;
  userId: string;
  input: unknown;
  /** The page's language, for a refusal naming the plan that includes the API. */
  locale?: Locale;
}): Promise<{ key: ApiKeyView; secret: string }> {
  const parsed = createApiKeySchema.safeParse(options.input ?? {});
  if (!parsed.success) {
    throw new AppError("api_key_name_invalid", `name: ${parsed.error.issues[0]!.message}`, {
      values: { max: MAX_API_KEY_NAME },
    });
  }
  // An account whose plan does not include the API gets no key to call it with.
  await requireApiAllowed(
    options.db,
    { id: options.userId },
    await currentPlan(options.db, options.userId),
    options.locale,
  );
  const secret = generateApiKey();
  const row = await options.db.transaction(async (tx) => {
    await tx.select({ id: user.id }).from(user).where(eq(user.id, options.userId)).for("update");
    const [existing] = await tx.select({ n: count() }).from(apiKey).where(eq(apiKey.userId, options.userId));
    if ((existing?.n ?? 0) >= MAX_API_KEYS) throw new AppError("api_key_limit", `at most ${MAX_API_KEYS} keys`);
    const [created] = await tx
      .insert(apiKey)
      .values({
        userId: options.userId,
        name: parsed.data.name,
        prefix: secret.slice(0, VISIBLE_LENGTH),
        keyHash: hashApiKey(secret),
      })
      .returning(apiKeyColumns);
    return created!;
  });
  return { key: presentApiKey(row), secret };
}
