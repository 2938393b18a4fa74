import { data, redirect } from "react-router";
import { serverContextOf, signInUrl, type Ctx } from "#app/lib/request.server.ts";
import { AppError } from "#server/errors.ts";
import { setLike } from "#server/modules/explore/set-like.ts";
import { isUuid } from "#common/ids.ts";

/** What a like's form answers: the result's new state, for the button that sent it. */
export interface LikeOutcome {
  like: { id: string; liked: boolean; likes: number };
}

/**
 * The `like` and `unlike` intents of a page's form (explore, a result's page): a signed-out visitor is sent to sign
 * in and back to the page; a result that is not public is a 404. Returns null for any other intent.
 */
export async function likeFromForm(context: Ctx, request: Request, form: FormData) {
  const intent = form.get("intent");
  if (intent !== "like" && intent !== "unlike") return null;
  const { runtime, session } = serverContextOf(context);
  const url = new URL(request.url);
  if (!session.viewer) throw redirect(signInUrl(request, `${url.pathname}${url.search}`));
  const id = form.get("id");
  if (typeof id !== "string" || !isUuid(id)) throw data(null, { status: 404 });
  try {
    const outcome = await setLike({
      db: runtime.database.db,
      generationId: id,
      userId: session.viewer.id,
      liked: intent === "like",
    });
    return { like: { id, ...outcome } } satisfies LikeOutcome;
  } catch (error) {
    if (error instanceof AppError && error.code === "not_found") throw data(null, { status: 404 });
    throw error;
  }
}
