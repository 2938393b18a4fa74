import { eq, sql } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { user } from "#server/db/schema/index.ts";
import { isUniqueViolation } from "#server/db/errors.ts";
import { BIO_MAX, HANDLE_PATTERN, RESERVED_HANDLES, normalizeHandle } from "#common/explore.ts";

export type PublicProfileProblem = "handleInvalid" | "handleReserved" | "handleTaken" | "bioTooLong";

/**
 * An account's public side: its handle (its creator page, `/u/{handle}`; empty removes the page), a few words about
 * it, and whether its new results start public. A handle is kept lowercase and unique (two accounts asking for one
 * at once: one gets it, the other is told it is taken); the site's own words are refused.
 */
export async function setPublicProfile(options: {
  db: Db;
  userId: string;
  handle: string;
  bio: string;
  publishByDefault: boolean;
}): Promise<{ ok: true; handle: string | null } | { ok: false; problem: PublicProfileProblem }> {
  const handle = normalizeHandle(options.handle) || null;
  if (handle !== null && !HANDLE_PATTERN.test(handle)) return { ok: false, problem: "handleInvalid" };
  if (handle !== null && RESERVED_HANDLES.has(handle)) return { ok: false, problem: "handleReserved" };
  const bio = options.bio.trim();
  if (bio.length > BIO_MAX) return { ok: false, problem: "bioTooLong" };
  try {
    await options.db
      .update(user)
      .set({ handle, bio: bio || null, publishByDefault: options.publishByDefault, updatedAt: sql`now()` })
      .where(eq(user.id, options.userId));
  } catch (error) {
    if (isUniqueViolation(error)) return { ok: false, problem: "handleTaken" };
    throw error;
  }
  return { ok: true, handle };
}
