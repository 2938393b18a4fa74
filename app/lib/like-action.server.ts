import { data } from "react-router";
import type { Ctx } from "#app/lib/request.server.ts";
import { requireViewer } from "#app/lib/auth.server.ts";
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
  const { viewer, runtime } = requireViewer(context, request);
  const id = form.get("id");
  if (typeof id !== "string" || !isUuid(id)) throw data(null, { status: 404 });
  try {
    // A like may lose its last moments in a crash, together with its count (decision 051): the counters' pool.
    const outcome = await setLike({
      db: runtime.database.counters,
      generationId: id,
      userId: viewer.id,
      liked: intent === "like",
    });
    return { like: { id, ...outcome } } satisfies LikeOutcome;
  } catch (error) {
    if (error instanceof AppError && error.code === "not_found") throw data(null, { status: 404 });
    throw error;
  }
}
