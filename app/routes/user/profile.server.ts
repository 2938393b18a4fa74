import { data, redirect, type RouterContextProvider } from "react-router";
import { authAttemptOf, cookiesOf, retryLater, type requireViewer } from "#app/lib/auth.server.ts";
import { localizedPath, serverContextOf } from "#app/lib/request.server.ts";
import type { ProfileResult } from "#app/components/profile/result.ts";
import { flashCookie, localeCookie } from "#server/http/cookies.ts";
import { deleteOwnAccount } from "#server/modules/auth/delete-own-account.ts";
import { updateProfile } from "#server/modules/users/update-profile.ts";
import { setPublicProfile } from "#server/modules/users/set-public-profile.ts";
import { AvatarError, removeAvatar, setAvatar } from "#server/modules/users/set-avatar.ts";
import { revokeSession } from "#server/modules/users/revoke-session.ts";
import { revokeOtherSessions } from "#server/modules/users/revoke-other-sessions.ts";
import { nameField } from "#common/auth-schema.ts";
import { isLocale, localizePath } from "#common/locales.ts";

/** What each intent is given: the request, its form, and the signed-in viewer the action's guard handed back. */
type IntentArgs = ReturnType<typeof requireViewer> & {
  context: Readonly<RouterContextProvider>;
  request: Request;
  form: FormData;
};
type Answer = ProfileResult | Response | ReturnType<typeof data<ProfileResult>>;

const refused = (error: string, field?: string) => data<ProfileResult>({ error, field }, { status: 400 });

/** The profile page's forms, one function per `intent`: each parses its fields, calls its use case, answers. */
export const profileIntents: Record<string, (args: IntentArgs) => Promise<Answer>> = {
  async name({ viewer, db, form }) {
    const parsed = nameField.safeParse(form.get("name"));
    if (!parsed.success) return refused(`auth:${parsed.error.issues[0]!.message}`, "name");
    await updateProfile({ db, userId: viewer.id, name: parsed.data });
    return { ok: "profile.nameSaved" };
  },

  async publicProfile({ viewer, db, form }) {
    const saved = await setPublicProfile({
      db,
      userId: viewer.id,
      handle: String(form.get("handle") ?? ""),
      bio: String(form.get("bio") ?? ""),
      // The switch says what most people want: results kept private until they publish them.
      publishByDefault: form.get("keepPrivate") !== "on",
    });
    if (!saved.ok) return refused(`profile.public.${saved.problem}`, saved.problem === "bioTooLong" ? "bio" : "handle");
    return { ok: "profile.public.saved" };
  },

  async locale({ viewer, db, form }) {
    const locale = form.get("locale");
    if (!isLocale(locale)) return refused("common:error.400");
    await updateProfile({ db, userId: viewer.id, locale });
    // The page itself moves to the chosen language, as it will after every sign-in.
    return redirect(localizePath("/user/profile", locale), { headers: { "Set-Cookie": localeCookie(locale) } });
  },

  async avatar({ viewer, runtime, db, form }) {
    const file = form.get("avatar");
    if (!(file instanceof File) || file.size === 0) return refused("profile.avatarInvalid");
    try {
      await setAvatar({
        db,
        storage: runtime.storage,
        userId: viewer.id,
        bytes: new Uint8Array(await file.arrayBuffer()),
      });
    } catch (error) {
      if (error instanceof AvatarError) return refused(`profile.${error.problem}`);
      throw error;
    }
    return { ok: "profile.avatarSaved" };
  },

  async "avatar-remove"({ viewer, runtime, db }) {
    await removeAvatar({ db, storage: runtime.storage, userId: viewer.id });
    return { ok: "profile.avatarRemoved" };
  },

  async revoke({ viewer, db, context, form }) {
    const { session } = serverContextOf(context);
    const id = String(form.get("session") ?? "");
    if (id === session.sessionId) return refused("common:error.400");
    await revokeSession({ db, userId: viewer.id, sessionId: id });
    return { ok: "profile.revoked" };
  },

  async "revoke-others"({ viewer, db, context }) {
    const { session } = serverContextOf(context);
    await revokeOtherSessions({ db, userId: viewer.id, keepSessionId: session.sessionId! });
    return { ok: "profile.revokedOthers" };
  },

  async delete({ viewer, runtime, context, request, form }) {
    const deleted = await deleteOwnAccount({
      ...authAttemptOf(context),
      storage: runtime.storage,
      viewer,
      password: String(form.get("password") ?? ""),
      email: String(form.get("email") ?? ""),
    });
    if (!deleted.ok && deleted.reason === "rate_limited") {
      return data<ProfileResult>({ error: "common:error.tooMany", field: "delete" }, retryLater(deleted));
    }
    if (!deleted.ok) {
      return refused(
        deleted.reason === "wrong_password" ? "auth:error.wrongPassword" : "profile.deleteEmailMismatch",
        "delete",
      );
    }
    const out = cookiesOf(deleted.cookies);
    out.append("Set-Cookie", flashCookie("accountDeleted"));
    return redirect(localizedPath(request, "/"), { headers: out });
  },
};
