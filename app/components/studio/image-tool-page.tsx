import { useCallback, useEffect, useEffectEvent, useMemo, useRef } from "react";
import { Button, Empty, Typography } from "antd";
import { AppstoreOutlined } from "#app/components/antd-icons.ts";
import { useTranslation } from "react-i18next";
import { useCancelGeneration } from "#app/components/studio/submit.tsx";
import { Link, useLocation } from "react-router";
import { useToast } from "#app/components/feedback.ts";
import { GenerationCard } from "#app/components/studio/generation-card.tsx";
import { ImageStudioForm, type ImageSettings } from "#app/components/studio/image-studio.tsx";
import { DemoNotice, usePageLocale } from "#app/components/studio/parts.tsx";
import { refreshCredits } from "#app/lib/refresh-credits.ts";
import {
  useGenerationList,
  revealResults,
  useLiveGenerations,
  type GenerationView,
  type ModelView,
} from "#app/lib/generations.ts";
import { hrefIn } from "#common/locales.ts";
import { toolPath, type GenerationTool } from "#common/tools.ts";

/** Loads more when the sentinel comes into view; the button is there for keyboards and when observers are not. */
export function LoadMore({
  onMore,
  loading,
  failed,
  failedText,
}: {
  onMore: () => void;
  loading: boolean;
  failed: boolean;
  failedText?: string;
}) {
  const { t } = useTranslation("studio");
  const sentinel = useRef<HTMLDivElement>(null);
  const more = useEffectEvent(onMore);
  useEffect(() => {
    const el = sentinel.current;
    if (!el || typeof IntersectionObserver === "undefined" || failed) return;
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) more();
    });
    observer.observe(el);
    return () => observer.disconnect();
  }, [failed]);
  return (
    <div ref={sentinel} className="gen-more">
      {failed && (
        <p role="alert" className="gen-more-failed">
          {failedText ?? t("messages:msg.generation.imageQueryFailed")}
        </p>
      )}
      <Button onClick={onMore} loading={loading}>
        {failed ? t("common:action.retry") : t("list.more")}
      </Button>
    </div>
  );
}

/** The image tools some offered model serves, each a link to its workspace; the current one marked. */
function ToolSwitcher({ tool, served }: { tool: GenerationTool; served: readonly GenerationTool[] }) {
  const { t } = useTranslation("studio");
  const { pathname } = useLocation();
  const nav = useRef<HTMLElement>(null);
  // On a narrow screen the row scrolls sideways: the current tool is brought into view, without moving the page.
  useEffect(() => {
    const row = nav.current;
    const current = row?.querySelector<HTMLElement>(".is-current");
    if (row && current) row.scrollLeft = current.offsetLeft - (row.clientWidth - current.offsetWidth) / 2;
  }, [tool]);
  return (
    <nav ref={nav} className="studio-switcher" aria-label={t("nav.tools")}>
      {served.map((id) => (
        <Link
          key={id}
          to={hrefIn(pathname, toolPath(id))}
          className={`studio-switcher-link${id === tool ? " is-current" : ""}`}
          aria-current={id === tool ? "page" : undefined}
        >
          {t(`tools.${id}.title`)}
        </Link>
      ))}
    </nav>
  );
}

/**
 * An image tool's page: the form its row in the table of tools calls for, and the results. The create page shows
 * what was started there (kept in the address, so a reload finds a running job still running); the workspace shows
 * the tool's whole history, newest first, with infinite scroll. A tool no offered model serves says so instead.
 */
export function ImageToolPage({
  tool,
  models,
  served,
  initial,
  history,
  current,
  workspace,
}: {
  tool: GenerationTool;
  models: ModelView[];
  /** The image tools at least one offered model serves. */
  served: readonly GenerationTool[];
  initial: ImageSettings;
  history: { items: GenerationView[]; nextCursor: string | null };
  current: GenerationView | null;
  workspace: boolean;
}) {
  const { t } = useTranslation("studio");
  const { pathname } = useLocation();
  const locale = usePageLocale();
  const toast = useToast();
  const start = useMemo(
    () => (workspace ? history : { items: current ? [current] : [], nextCursor: null }),
    [workspace, history, current],
  );
  const list = useGenerationList(start, { tool }, locale);
  const { cancel: onCancel, canceling } = useCancelGeneration((g) => list.replace(g));
  const queryFailed = useRef(false);

  useLiveGenerations(list.items, {
    locale,
    onChange: (g, before) => {
      list.replace(g);
      queryFailed.current = false;
      if (
        g.status !== before.status &&
        (g.status === "succeeded" || g.status === "failed" || g.status === "canceled")
      ) {
        void refreshCredits();
        if (g.status === "failed") toast.error(t("messages:msg.generation.imageGenerateFailed"));
      }
    },
    onError: () => {
      // Said once until a look succeeds again, not every three seconds.
      if (!queryFailed.current) toast.error(t("messages:msg.generation.imageQueryFailed"));
      queryFailed.current = true;
    },
  });

  const onSubmitted = useCallback(
    (g: GenerationView) => {
      list.prepend(g);
      revealResults();
      if (!workspace) {
        // Keep the job in the address: a reload shows it still running.
        const url = new URL(window.location.href);
        url.searchParams.set("id", g.id);
        url.searchParams.delete("from");
        window.history.replaceState(window.history.state, "", url);
      }
    },
    [list, workspace],
  );

  const shown = workspace ? list.items : list.items.slice(0, 4);
  return (
    <div className="dash-page studio">
      <header className="studio-head">
        <div>
          <Typography.Title level={1} className="dash-title">
            {t(`tools.${tool}.title`)}
          </Typography.Title>
          <Typography.Text type="secondary">{t(`tools.${tool}.subtitle`)}</Typography.Text>
        </div>
        <div className="studio-head-links">
          {workspace ? (
            <Link to={hrefIn(pathname, "/dashboard/image")}>
              <AppstoreOutlined aria-hidden /> {t("nav.gallery")}
            </Link>
          ) : (
            <Link to={hrefIn(pathname, toolPath(tool))}>{t("nav.history")}</Link>
          )}
        </div>
      </header>
      <ToolSwitcher tool={tool} served={served} />
      {models.length === 0 ? (
        <Empty className="studio-unserved" data-testid="tool-unserved" description={t("unserved")} />
      ) : (
        <div className="studio-layout">
          <section className="studio-panel" aria-label={t("form.settings")}>
            <ImageStudioForm tool={tool} models={models} initial={initial} onSubmitted={onSubmitted} />
          </section>
          <section className="studio-results" aria-label={t("results.title")} aria-live="polite">
            <Typography.Title level={2} className="studio-results-title">
              {workspace ? t("results.history") : t("results.title")}
            </Typography.Title>
            {shown.length === 0 ? (
              <Empty
                className="studio-empty"
                image={Empty.PRESENTED_IMAGE_SIMPLE}
                description={t(workspace ? "results.emptyHistory" : "results.empty")}
              />
            ) : (
              <>
                {shown.some((g) => g.model.offline && g.status === "succeeded") && <DemoNotice list />}
                <div className="gen-grid">
                  {shown.map((g) => (
                    <GenerationCard key={g.id} generation={g} onCancel={onCancel} canceling={canceling === g.id} />
                  ))}
                </div>
              </>
            )}
            {workspace && list.hasMore && (
              <LoadMore onMore={() => void list.loadMore()} loading={list.loading} failed={list.failed} />
            )}
          </section>
        </div>
      )}
    </div>
  );
}
