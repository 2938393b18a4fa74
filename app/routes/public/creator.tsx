import { useTranslation } from "react-i18next";
import { Link, data, useFetcher, useLocation } from "react-router";
import type { Route } from "./+types/creator";
import { seoMeta } from "#app/seo.ts";
import { pageMeta } from "#app/lib/page.server.ts";
import { formOf, serverContextOf, siteOf } from "#app/lib/request.server.ts";
import { likeFromForm } from "#app/lib/like-action.server.ts";
import { followFromForm, type FollowOutcome } from "#app/lib/follow-action.server.ts";
import { getCreator } from "#server/modules/explore/get-creator.ts";
import { listCreatorWorks } from "#server/modules/explore/list-creator-works.ts";
import { EXPLORE_MAX_PAGE } from "#common/explore.ts";
import { hrefIn, localizedUrl } from "#common/locales.ts";
import { signInHref } from "#common/return-path.ts";
import { Title, Paragraph } from "#app/components/ui/typography.tsx";
import { ExploreGrid } from "#app/components/explore/explore-grid.tsx";

export const meta = ({ loaderData }: Route.MetaArgs) => seoMeta(loaderData?.seo);

/** Signed out, the page is the same for everyone: kept a minute by the page cache and shared caches. */
export const headers: Route.HeadersFunction = ({ parentHeaders, loaderHeaders }) => {
  const headers = new Headers(parentHeaders);
  headers.set("Cache-Control", loaderHeaders.get("Cache-Control") ?? "private, no-cache");
  return headers;
};

async function creatorOf(context: Route.LoaderArgs["context"], handle: string) {
  const { runtime, session } = serverContextOf(context);
  const creator = await getCreator({ db: runtime.database.db, handle, viewerId: session.viewer?.id ?? null });
  if (!creator) throw data(null, { status: 404 });
  return creator;
}

export async function action({ context, request, params }: Route.ActionArgs) {
  const form = await formOf(request);
  const liked = await likeFromForm(context, request, form);
  if (liked) return liked;
  const creator = await creatorOf(context, params.handle);
  const followed = await followFromForm(context, request, form, creator.id);
  if (!followed) throw data(null, { status: 400 });
  return followed;
}

/** A creator's page (`/u/{handle}`): who they are, their public works, likes received, and a way to follow them. */
export async function loader({ context, request, params }: Route.LoaderArgs) {
  const { runtime, session } = serverContextOf(context);
  const url = new URL(request.url);
  const page = Math.min(Math.max(Number(url.searchParams.get("page")) || 1, 1), EXPLORE_MAX_PAGE);
  // Creator pages are part of explore: closed with it, before anything is read.
  if (!siteOf(context).explore) throw data(null, { status: 404 });
  const creator = await creatorOf(context, params.handle);
  const { i18n, seo } = pageMeta(context, request, ["explore"], (t, site) => ({
    title: t("explore:creator.metaTitle", { name: creator.name, handle: creator.handle }),
    description:
      creator.bio ??
      t("explore:creator.metaDescription", { name: creator.name, handle: creator.handle, site: site.name }),
    search: page > 1 ? `?page=${page}` : "",
    jsonLd: [
      {
        "@context": "https://schema.org",
        "@type": "ProfilePage",
        mainEntity: {
          "@type": "Person",
          name: creator.name,
          alternateName: `@${creator.handle}`,
          ...(creator.bio ? { description: creator.bio } : {}),
          ...(creator.image ? { image: new URL(creator.image, site.url).toString() } : {}),
          url: localizedUrl(site.url, `/u/${creator.handle}`, "en"),
          interactionStatistic: [
            {
              "@type": "InteractionCounter",
              interactionType: "https://schema.org/FollowAction",
              userInteractionCount: creator.followers,
            },
          ],
        },
      },
    ],
  }));
  const viewerId = session.viewer?.id ?? null;
  const works = await listCreatorWorks({ db: runtime.database.db, creatorId: creator.id, viewerId, page });
  return data(
    {
      seo,
      i18n,
      creator,
      page,
      signedIn: viewerId !== null,
      items: works.items.map((item) => ({ ...item, model: runtime.models.nameOf(item.modelId) })),
      hasMore: works.hasMore,
    },
    { headers: { "Cache-Control": viewerId ? "private, no-cache" : "public, max-age=60" } },
  );
}

/** Follow or unfollow: a form posted to the page (works before the scripts), answered at once once they run. */
function FollowButton({ creator, signedIn }: { creator: { followed: boolean; followers: number }; signedIn: boolean }) {
  const { t } = useTranslation("explore");
  const { pathname, search } = useLocation();
  const fetcher = useFetcher<FollowOutcome>();
  if (!signedIn)
    return (
      <Link to={signInHref(pathname, `${pathname}${search}`)} className="creator-follow">
        {t("creator.signInToFollow")}
      </Link>
    );
  const sent = fetcher.formData?.get("intent");
  const now = sent ? sent === "follow" : (fetcher.data?.follow.followed ?? creator.followed);
  return (
    <fetcher.Form method="post" action={`${pathname}${search}`} className="creator-follow-form">
      <button
        type="submit"
        name="intent"
        value={now ? "unfollow" : "follow"}
        className={now ? "creator-follow following" : "creator-follow"}
        aria-pressed={now}
        data-testid="follow"
      >
        {t(now ? "creator.unfollow" : "creator.follow")}
      </button>
    </fetcher.Form>
  );
}

export default function CreatorPage({ loaderData, actionData }: Route.ComponentProps) {
  const { t } = useTranslation("explore");
  const { pathname } = useLocation();
  const { creator, items, page, hasMore, signedIn } = loaderData;
  const followers = actionData && "follow" in actionData ? actionData.follow.followers : creator.followers;
  const base = hrefIn(pathname, `/u/${creator.handle}`);
  return (
    <div className="page-wide creator">
      <header className="creator-head">
        {creator.image ? (
          <img src={creator.image} alt="" className="creator-avatar" width={96} height={96} />
        ) : (
          <span className="creator-avatar creator-initial" aria-hidden>
            {creator.name.slice(0, 1).toUpperCase()}
          </span>
        )}
        <div className="creator-who">
          <Title level={1}>{creator.name}</Title>
          <p className="creator-handle">@{creator.handle}</p>
          {creator.bio && (
            <Paragraph className="creator-bio" dir="auto">
              {creator.bio}
            </Paragraph>
          )}
          <ul className="creator-stats">
            <li>{t("creator.works", { count: creator.works })}</li>
            <li>{t("creator.likes", { count: creator.likes })}</li>
            <li data-testid="followers">{t("creator.followers", { count: followers })}</li>
          </ul>
          {creator.own ? (
            <Link to={hrefIn(pathname, "/user/profile#public-profile")}>{t("creator.edit")}</Link>
          ) : (
            <FollowButton creator={{ ...creator, followers }} signedIn={signedIn} />
          )}
        </div>
      </header>
      {items.length === 0 ? (
        <p className="explore-empty">{t("creator.empty")}</p>
      ) : (
        <ExploreGrid items={items} signedIn={signedIn} eager />
      )}
      <nav className="explore-pages" aria-label={t("pages.label")}>
        {page > 1 && (
          <Link to={page === 2 ? base : `${base}?page=${page - 1}`} rel="prev">
            ← {t("pages.previous")}
          </Link>
        )}
        {hasMore && (
          <Link to={`${base}?page=${page + 1}`} rel="next">
            {t("pages.next")} →
          </Link>
        )}
      </nav>
    </div>
  );
}
