import { useEffect, useRef, useState, type RefObject } from "react";
import { useTranslation } from "react-i18next";
import { Form, Link, data, redirect, useFetcher, useLocation, useNavigate } from "react-router";
import type { Route } from "./+types/explore";
import { seoMeta } from "#app/seo.ts";
import { pageMeta } from "#app/lib/page.server.ts";
import { formOf, pathLocale, serverContextOf } from "#app/lib/request.server.ts";
import { likeFromForm } from "#app/lib/like-action.server.ts";
import { listExplore } from "#server/modules/explore/list-explore.ts";
import { listFeatured } from "#server/modules/explore/list-featured.ts";
import type { ExploreItem } from "#server/modules/explore/listing.ts";
import { displayName } from "#config/models.ts";
import { serverT } from "#server/i18n/translations.ts";
import { GENERATION_TOOLS } from "#common/generation.ts";
import { EXPLORE_QUERY_MAX, EXPLORE_SORTS, exploreSearch, readExploreQuery } from "#common/explore.ts";
import { hrefIn } from "#common/locales.ts";
import { Title, Paragraph } from "#app/components/ui/typography.tsx";
import type { ExploreCardItem } from "#app/components/explore/explore-card.tsx";
import { ExploreGrid } from "#app/components/explore/explore-grid.tsx";

export const meta = ({ loaderData }: Route.MetaArgs) => seoMeta(loaderData?.seo);

/** Signed out, the page is the same for everyone: kept a minute by the page cache and shared caches. */
export const headers: Route.HeadersFunction = ({ parentHeaders, loaderHeaders }) => {
  const headers = new Headers(parentHeaders);
  headers.set("Cache-Control", loaderHeaders.get("Cache-Control") ?? "private, no-cache");
  return headers;
};

const FEATURED_SIZE = 6;

export async function action({ context, request }: Route.ActionArgs) {
  const form = await formOf(request);
  const outcome = await likeFromForm(context, request, form);
  if (!outcome) throw data(null, { status: 400 });
  return outcome;
}

export async function loader({ context, request }: Route.LoaderArgs) {
  const { runtime, session } = serverContextOf(context);
  const url = new URL(request.url);
  const query = readExploreQuery(url.searchParams);
  const { site, i18n, seo } = pageMeta(context, request, ["explore"], (t, site) => ({
    title: query.q ? t("explore:search.results", { q: query.q }) : t("explore:metaTitle"),
    description: t("explore:metaDescription", { site: site.name }),
    search: exploreSearch({ ...query, q: undefined }),
    // A search is the visitor's own page: listed nowhere.
    noindex: Boolean(query.q),
  }));
  if (!site.explore) throw data(null, { status: 404 });
  // One address per page: empty fields of the form, defaults and values explore does not know are dropped (for
  // the page's own address only: the scripts' data requests carry the router's parameters).
  const canonical = exploreSearch(query);
  if (!url.pathname.endsWith(".data") && url.search !== canonical) throw redirect(`${url.pathname}${canonical}`);
  const locale = pathLocale(request);
  const studio = serverT(locale, ["studio"]);
  const viewerId = session.viewer?.id ?? null;
  const plain = query.page === 1 && !query.q && !query.kind && !query.tool && !query.model && !query.feed;
  const [list, featured] = await Promise.all([
    listExplore({ db: runtime.database.db, query, locale, viewerId }),
    plain ? listFeatured({ db: runtime.database.db, viewerId, limit: FEATURED_SIZE }) : [],
  ]);
  const named = (item: ExploreItem): ExploreCardItem => ({ ...item, model: runtime.models.nameOf(item.modelId) });
  return data(
    {
      seo,
      i18n,
      site: site.name,
      query,
      items: list.items.map(named),
      hasMore: list.hasMore,
      featured: featured.map(named),
      signedIn: viewerId !== null,
      tools: GENERATION_TOOLS.map((id) => ({ id, label: studio(`tools.${id}.title`) })),
      models: runtime.models.media().map((m) => ({ id: m.id, name: displayName(m, locale) })),
    },
    { headers: { "Cache-Control": viewerId ? "private, no-cache" : "public, max-age=60" } },
  );
}

type LoaderData = Awaited<ReturnType<typeof loader>>["data"];

/**
 * The pages after the first, loaded as the visitor scrolls to the "more" link (which stays a plain link to the next
 * page before the scripts run, and for anyone who follows it). Each loaded page is its own block of columns, so
 * what is on screen never moves.
 */
function useMorePages(first: LoaderData, next: RefObject<HTMLAnchorElement | null>) {
  const fetcher = useFetcher<LoaderData>();
  const [pages, setPages] = useState<{ page: number; items: ExploreCardItem[]; hasMore: boolean }[]>([]);
  const last = pages.at(-1) ?? { page: first.query.page, hasMore: first.hasMore };
  const { pathname } = useLocation();
  const urlOf = (page: number) => `${hrefIn(pathname, "/explore")}${exploreSearch({ ...first.query, page })}`;
  // A page that arrived is added once, while rendering (no effect needed to notice it).
  const loaded = fetcher.data;
  const [added, setAdded] = useState(loaded);
  if (loaded !== added) {
    setAdded(loaded);
    if (loaded && loaded.query.page === last.page + 1)
      setPages([...pages, { page: loaded.query.page, items: loaded.items, hasMore: loaded.hasMore }]);
  }
  const loading = fetcher.state !== "idle";
  useEffect(() => {
    const link = next.current;
    if (!link || !last.hasMore || loading) return;
    const observer = new IntersectionObserver(
      ([entry]) => {
        if (entry?.isIntersecting) void fetcher.load(urlOf(last.page + 1));
      },
      { rootMargin: "800px 0px" },
    );
    observer.observe(link);
    return () => observer.disconnect();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- `urlOf` follows `first.query`
  }, [last.page, last.hasMore, loading, first.query]);
  return { pages, last, loading, urlOf };
}

/** The search and filters: a plain GET form (works before the scripts); once they run, a change applies at once. */
function Filters({ query, tools, models }: Pick<LoaderData, "query" | "tools" | "models">) {
  const { t } = useTranslation("explore");
  const { pathname } = useLocation();
  const navigate = useNavigate();
  const explore = hrefIn(pathname, "/explore");
  const go = (form: HTMLFormElement) => {
    const values = Object.fromEntries(new FormData(form)) as Record<string, string>;
    void navigate(`${explore}${exploreSearch(readExploreQuery(new URLSearchParams(values)))}`);
  };
  return (
    <Form
      method="get"
      action={explore}
      className="explore-filters"
      role="search"
      onSubmit={(e) => {
        e.preventDefault();
        go(e.currentTarget);
      }}
    >
      <label className="explore-search">
        <span className="visually-hidden">{t("search.label")}</span>
        <input
          type="search"
          name="q"
          defaultValue={query.q ?? ""}
          maxLength={EXPLORE_QUERY_MAX}
          placeholder={t("search.placeholder")}
          key={query.q ?? ""}
        />
      </label>
      {query.kind && <input type="hidden" name="kind" value={query.kind} />}
      {query.sort !== "trending" && <input type="hidden" name="sort" value={query.sort} />}
      <label className="explore-select">
        <span className="visually-hidden">{t("filters.tool")}</span>
        <select
          name="tool"
          defaultValue={query.tool ?? ""}
          key={`tool-${query.tool ?? ""}`}
          onChange={(e) => go(e.currentTarget.form!)}
        >
          <option value="">{t("filters.anyTool")}</option>
          {tools.map((tool) => (
            <option key={tool.id} value={tool.id}>
              {tool.label}
            </option>
          ))}
        </select>
      </label>
      <label className="explore-select">
        <span className="visually-hidden">{t("filters.model")}</span>
        <select
          name="model"
          defaultValue={query.model ?? ""}
          key={`model-${query.model ?? ""}`}
          onChange={(e) => go(e.currentTarget.form!)}
        >
          <option value="">{t("filters.anyModel")}</option>
          {models.map((model) => (
            <option key={model.id} value={model.id}>
              {model.name}
            </option>
          ))}
        </select>
      </label>
      <button type="submit" className="explore-submit">
        {t("search.submit")}
      </button>
    </Form>
  );
}

/** Links that change one part of the query (the order, the kind), the rest kept: the current one is marked. */
function QueryLinks({
  name,
  label,
  links,
}: {
  name: string;
  label: string;
  links: { key: string; search: string; text: string; current: boolean }[];
}) {
  const { pathname } = useLocation();
  const explore = hrefIn(pathname, "/explore");
  return (
    <nav className={`explore-${name}`} aria-label={label}>
      {links.map((link) => (
        <Link
          key={link.key}
          to={`${explore}${link.search}`}
          className="explore-chip"
          aria-current={link.current ? "page" : undefined}
          preventScrollReset
        >
          {link.text}
        </Link>
      ))}
    </nav>
  );
}

export default function Explore({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("explore");
  const { pathname } = useLocation();
  const { query, items, featured, signedIn } = loaderData;
  const next = useRef<HTMLAnchorElement>(null);
  const more = useMorePages(loaderData, next);
  const explore = hrefIn(pathname, "/explore");
  const filtered = Boolean(query.q || query.kind || query.tool || query.model || query.feed);
  return (
    <div className="page-wide explore">
      <header className="explore-head">
        <Title level={1}>{query.q ? t("search.results", { q: query.q }) : t("title")}</Title>
        <Paragraph type="secondary">{t("intro", { site: loaderData.site })}</Paragraph>
      </header>
      <Filters query={query} tools={loaderData.tools} models={loaderData.models} />
      <div className="explore-bar">
        <QueryLinks
          name="sort"
          label={t("sort.label")}
          links={EXPLORE_SORTS.map((sort) => ({
            key: sort,
            search: exploreSearch({ ...query, sort, page: 1 }),
            text: t(`sort.${sort}`),
            current: query.sort === sort,
          }))}
        />
        <QueryLinks
          name="kind"
          label={t("filters.kind")}
          links={([undefined, "image", "video"] as const).map((kind) => ({
            key: kind ?? "all",
            search: exploreSearch({ ...query, kind, page: 1 }),
            text: t(`filters.${kind ?? "anyKind"}`),
            current: query.kind === kind,
          }))}
        />
        {signedIn && (
          <QueryLinks
            name="feed"
            label={t("filters.feed")}
            links={([undefined, "following"] as const).map((feed) => ({
              key: feed ?? "everyone",
              search: exploreSearch({ ...query, feed, page: 1 }),
              text: t(`filters.${feed ?? "everyone"}`),
              current: query.feed === feed,
            }))}
          />
        )}
        {filtered && (
          <Link to={explore} className="explore-clear">
            {t("filters.clear")}
          </Link>
        )}
      </div>
      {featured.length > 0 && (
        <section className="explore-featured" aria-labelledby="explore-featured">
          <h2 id="explore-featured">{t("featured")}</h2>
          <ExploreGrid items={featured} signedIn={signedIn} eager />
        </section>
      )}
      {items.length === 0 ? (
        <p className="explore-empty" data-testid="explore-empty">
          {query.q ? t("emptySearch", { q: query.q }) : query.feed ? t("emptyFollowing") : t("empty")}
        </p>
      ) : (
        <section aria-label={t("pages.page", { page: query.page })}>
          <ExploreGrid items={items} signedIn={signedIn} eager={featured.length === 0} />
        </section>
      )}
      {more.pages.map((page) => (
        <section key={page.page} aria-label={t("pages.page", { page: page.page })}>
          <ExploreGrid items={page.items} signedIn={signedIn} />
        </section>
      ))}
      <nav className="explore-pages" aria-label={t("pages.label")}>
        {query.page > 1 && (
          <Link to={`${explore}${exploreSearch({ ...query, page: query.page - 1 })}`} rel="prev">
            ← {t("pages.previous")}
          </Link>
        )}
        {more.last.hasMore ? (
          <Link ref={next} to={more.urlOf(more.last.page + 1)} rel="next" data-testid="explore-more">
            {more.loading ? t("pages.loading") : t("pages.next")} →
          </Link>
        ) : (
          items.length > 0 && <span className="explore-end">{t("pages.end")}</span>
        )}
      </nav>
    </div>
  );
}
