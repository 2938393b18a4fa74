import { useTranslation } from "react-i18next";
import { Link, useFetcher, useLocation } from "react-router";
import { signInHref } from "#common/return-path.ts";
import { formatNumber } from "#common/format.ts";
import { localeOfPath } from "#common/locales.ts";
import type { LikeOutcome } from "#app/lib/like-action.server.ts";

function Heart({ filled }: { filled: boolean }) {
  return (
    <svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" focusable="false">
      <path
        d="M12 21s-7.5-4.6-9.6-9.1C1 8.8 2.9 5 6.6 5c2.1 0 3.6 1.2 5.4 3.2C13.8 6.2 15.3 5 17.4 5c3.7 0 5.6 3.8 4.2 6.9C19.5 16.4 12 21 12 21z"
        fill={filled ? "currentColor" : "none"}
        stroke="currentColor"
        strokeWidth="1.8"
        strokeLinejoin="round"
      />
    </svg>
  );
}

/**
 * A result's like: a form posted to the page it is on (so it works before the scripts), answered at once on screen
 * once they run. Signed out, a link to sign in that comes back here.
 */
export function LikeButton({
  id,
  liked,
  likes,
  signedIn,
}: {
  id: string;
  liked: boolean;
  likes: number;
  signedIn: boolean;
}) {
  const { t } = useTranslation("explore");
  const { pathname, search } = useLocation();
  const fetcher = useFetcher<LikeOutcome>();
  const count = (n: number) => formatNumber(localeOfPath(pathname), n);
  if (!signedIn)
    return (
      <Link
        to={signInHref(pathname, `${pathname}${search}`)}
        className="like-button"
        aria-label={`${t("like.signIn")} (${t("like.count", { count: likes })})`}
      >
        <Heart filled={false} />
        <span>{count(likes)}</span>
      </Link>
    );
  // What is on screen: the click being sent, else what the server last said, else the page's data.
  const sent = fetcher.formData?.get("intent");
  const answered = fetcher.data?.like;
  const now = sent ? sent === "like" : (answered?.liked ?? liked);
  const base = answered ? answered.likes - (answered.liked ? 1 : 0) : likes - (liked ? 1 : 0);
  const shown = base + (now ? 1 : 0);
  return (
    <fetcher.Form method="post" action={`${pathname}${search}`} className="like-form" preventScrollReset>
      <input type="hidden" name="id" value={id} />
      <button
        type="submit"
        name="intent"
        value={now ? "unlike" : "like"}
        className="like-button"
        aria-pressed={now}
        aria-label={`${t(now ? "like.unlike" : "like.like")} (${t("like.count", { count: shown })})`}
      >
        <Heart filled={now} />
        <span>{count(shown)}</span>
      </button>
    </fetcher.Form>
  );
}
