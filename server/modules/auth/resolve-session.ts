import { eq } from "drizzle-orm";
import { getSessionCookie } from "better-auth/cookies";
import type { Db } from "#server/db/client.ts";
import { session as sessionTable } from "#server/db/schema/index.ts";
import { COOKIE_PREFIX, type Auth } from "#server/modules/auth/auth.ts";
import type { Viewer } from "#common/viewer.ts";

export interface ResolvedSession {
  viewer: Viewer | null;
  sessionId: string | null;
  /** The request carried a session cookie that no longer opens a session (expired, revoked or banned). */
  expired: boolean;
  /** Cookies better-auth refreshes or clears; the response must carry them. */
  setCookies: string[];
}

const NONE: ResolvedSession = { viewer: null, sessionId: null, expired: false, setCookies: [] };

/** Who is signing this request, read from its session cookie; a banned user's sessions end here. */
export async function resolveSession({ auth, db, headers }: { auth: Auth; db: Db; headers: Headers }) {
  if (!getSessionCookie(headers, { cookiePrefix: COOKIE_PREFIX })) return NONE;
  const { headers: out, response } = await auth.api.getSession({ headers, returnHeaders: true });
  const setCookies = out.getSetCookie();
  if (!response) return { ...NONE, expired: true, setCookies };
  const u = response.user as typeof response.user & {
    role?: string | null;
    banned?: boolean | null;
    banExpires?: Date | null;
    locale?: string | null;
  };
  const banActive = u.banned && (!u.banExpires || new Date(u.banExpires).getTime() > Date.now());
  if (banActive) {
    await db.delete(sessionTable).where(eq(sessionTable.userId, u.id));
    return { ...NONE, expired: true, setCookies };
  }
  const viewer: Viewer = {
    id: u.id,
    name: u.name,
    email: u.email,
    image: u.image ?? null,
    role: u.role === "admin" ? "admin" : "user",
    locale: u.locale ?? null,
  };
  return { viewer, sessionId: response.session.id, expired: false, setCookies } satisfies ResolvedSession;
}
