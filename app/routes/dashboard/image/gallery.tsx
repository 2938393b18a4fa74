import { useMemo, useRef } from "react";
import { Button, Empty, Select, Typography } from "antd";
import { useTranslation } from "react-i18next";
import { Link, useLocation, useNavigate, useSearchParams } from "react-router";
import type { Route } from "./+types/gallery";
import { useToast } from "#app/components/feedback.ts";
import { GenerationCard } from "#app/components/studio/generation-card.tsx";
import { LoadMore } from "#app/components/studio/image-tool-page.tsx";
import { DemoNotice, usePageLocale } from "#app/components/studio/parts.tsx";
import { ToolIcon } from "#app/components/studio/tool-icon.tsx";
import { requireViewer } from "#app/lib/auth.server.ts";
import { refreshCredits } from "#app/lib/refresh-credits.ts";
import { useGenerationList, useLiveGenerations } from "#app/lib/generations.ts";
import { seoMeta } from "#app/seo.ts";
import { studioPage, toolsServed } from "#app/lib/studio.server.ts";
import { listGenerations } from "#server/modules/generation/list-generations.ts";
import { GENERATION_STATUSES, VISIBILITIES } from "#common/generation.ts";
import { hrefIn } from "#common/locales.ts";
import { toolsOfKind } from "#common/tools.ts";

export const meta = ({ loaderData }: Route.MetaArgs) => seoMeta(loaderData?.seo);

const IMAGE_TOOLS = toolsOfKind("image");

/** The filters in the address, keeping only values the list understands. */
function filtersOf(params: URLSearchParams) {
  const pick = <T extends string>(name: string, allowed: readonly T[]) => {
    const v = params.get(name);
    return v && (allowed as readonly string[]).includes(v) ? (v as T) : undefined;
  };
  return {
    tool: pick("tool", IMAGE_TOOLS),
    status: pick("status", GENERATION_STATUSES),
    visibility: pick("visibility", VISIBILITIES),
  };
}

export async function loader({ context, request }: Route.LoaderArgs) {
  const { viewer, runtime, db } = requireViewer(context, request);
  const url = new URL(request.url);
  const filters = filtersOf(url.searchParams);
  const page = await listGenerations({
    db,
    userId: viewer.id,
    query: { kind: "image", limit: "24", ...Object.fromEntries(Object.entries(filters).filter(([, v]) => v)) },
  });
  return {
    ...studioPage(context, request, "gallery.title"),
    page,
    filters,
    served: toolsServed(runtime, "image", viewer),
  };
}

export default function ImageGallery({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("studio");
  const { pathname } = useLocation();
  const locale = usePageLocale();
  const toast = useToast();
  const [params, setParams] = useSearchParams();
  const navigate = useNavigate();
  const go = (to: string) => () => void navigate(hrefIn(pathname, to));
  const { filters } = loaderData;
  const query = useMemo(
    () => ({ kind: "image", ...Object.fromEntries(Object.entries(filters).filter(([, v]) => v)) }),
    [filters],
  );
  const list = useGenerationList(loaderData.page, query, locale);
  const queryFailed = useRef(false);
  useLiveGenerations(list.items, {
    locale,
    onChange: (g, before) => {
      list.replace(g);
      queryFailed.current = false;
      if (g.status !== before.status && !["queued", "processing"].includes(g.status)) void refreshCredits();
    },
    onError: () => {
      if (!queryFailed.current) toast.error(t("messages:msg.generation.imageQueryFailed"));
      queryFailed.current = true;
    },
  });
  const setFilter = (name: string, value: string | undefined) => {
    const next = new URLSearchParams(params);
    if (value) next.set(name, value);
    else next.delete(name);
    setParams(next, { preventScrollReset: true });
  };
  const filtered = Object.values(filters).some(Boolean);
  const all = t("gallery.all");

  return (
    <div className="dash-page gallery">
      <header className="studio-head">
        <div>
          <Typography.Title level={1} className="dash-title">
            {t("gallery.title")}
          </Typography.Title>
          <Typography.Text type="secondary">{t("gallery.subtitle")}</Typography.Text>
        </div>
        <nav className="gallery-tools" aria-label={t("nav.tools")}>
          {loaderData.served.map((tool, i) => (
            <Button
              key={tool}
              type={i === 0 ? "primary" : "default"}
              icon={<ToolIcon tool={tool} />}
              onClick={go(`/dashboard/image/create/${tool}`)}
            >
              {t(`tools.${tool}.title`)}
            </Button>
          ))}
        </nav>
      </header>
      <div className="gallery-filters" role="group" aria-label={t("gallery.filters")}>
        <Select
          aria-label={t("gallery.tool")}
          value={filters.tool ?? ""}
          onChange={(v) => setFilter("tool", v || undefined)}
          options={[
            { value: "", label: `${t("gallery.tool")}: ${all}` },
            ...IMAGE_TOOLS.map((v) => ({ value: v, label: t(`tools.${v}.title`) })),
          ]}
        />
        <Select
          aria-label={t("gallery.status")}
          value={filters.status ?? ""}
          onChange={(v) => setFilter("status", v || undefined)}
          options={[
            { value: "", label: `${t("gallery.status")}: ${all}` },
            ...GENERATION_STATUSES.map((v) => ({ value: v, label: t(`status.${v}`) })),
          ]}
        />
        <Select
          aria-label={t("gallery.visibility")}
          value={filters.visibility ?? ""}
          onChange={(v) => setFilter("visibility", v || undefined)}
          options={[
            { value: "", label: `${t("gallery.visibility")}: ${all}` },
            ...VISIBILITIES.map((v) => ({ value: v, label: t(`visibility.${v}`) })),
          ]}
        />
      </div>
      {list.items.length === 0 ? (
        <Empty className="gallery-empty" description={t(filtered ? "gallery.emptyFiltered" : "gallery.empty")}>
          {filtered ? (
            <Link to={hrefIn(pathname, "/dashboard/image")}>{t("gallery.clearFilters")}</Link>
          ) : (
            <Button type="primary" onClick={go("/dashboard/image/create/text-to-image")}>
              {t("gallery.start")}
            </Button>
          )}
        </Empty>
      ) : (
        <>
          {list.items.some((g) => g.model.offline && g.status === "succeeded") && <DemoNotice list />}
          <div className="gen-grid gen-grid-wide">
            {list.items.map((g) => (
              <GenerationCard key={g.id} generation={g} />
            ))}
          </div>
        </>
      )}
      {list.hasMore && <LoadMore onMore={() => void list.loadMore()} loading={list.loading} failed={list.failed} />}
    </div>
  );
}
