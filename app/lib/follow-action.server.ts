import { data } from "react-router";
import type { Ctx } from "#app/lib/request.server.ts";
import { requireViewer } from "#app/lib/auth.server.ts";
import { AppError } from "#server/errors.ts";
import { setFollow } from "#server/modules/explore/set-follow.ts";

/** What a follow's form answers: the creator's new state, for the button that sent it. */
export interface FollowOutcome {
  follow: { followed: boolean; followers: number };
}

/**
 * The `follow` and `unfollow` intents of a creator page's form: a signed-out visitor is sent to sign in and back;
 * following oneself is a 400, an unknown creator a 404. Returns null for any other intent.
 */
export async function followFromForm(context: Ctx, request: Request, form: FormData, creatorId: string) {
  const intent = form.get("intent");
  if (intent !== "follow" && intent !== "unfollow") return null;
  const { viewer, db } = requireViewer(context, request);
  try {
    const outcome = await setFollow({
      db,
      creatorId,
      followerId: viewer.id,
      followed: intent === "follow",
    });
    return { follow: outcome } satisfies FollowOutcome;
  } catch (error) {
    if (error instanceof AppError) throw data(null, { status: error.status });
    throw error;
  }
}
