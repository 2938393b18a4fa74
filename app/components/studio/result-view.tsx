import { useState, type ReactNode } from "react";
import { Alert, Button, Descriptions, Image, Input, Popconfirm, Space, Switch, Typography } from "antd";
import {
  CopyOutlined,
  DeleteOutlined,
  DownloadOutlined,
  RedoOutlined,
  StopOutlined,
} from "#app/components/antd-icons.ts";
import { useTranslation } from "react-i18next";
import { Link, useLocation, useNavigate } from "react-router";
import { useToast } from "#app/components/feedback.ts";
import { GenerationMedia, ratioCss } from "#app/components/studio/generation-card.tsx";
import { Chain, LightboxActions, ResultActions } from "#app/components/studio/chain.tsx";
import { DemoNotice, OfflineTag, ProgressBlock, StatusTag, usePageLocale } from "#app/components/studio/parts.tsx";
import { refreshCredits } from "#app/lib/refresh-credits.ts";
import {
  cancelGeneration,
  copyText,
  deleteGeneration,
  describeFailure,
  isOpen,
  setGenerationVisibility,
  useLiveGenerations,
  type GenerationView,
} from "#app/lib/generations.ts";
import { formatDate, formatNumber } from "#common/format.ts";
import { toolPath } from "#common/tools.ts";
import { hrefIn } from "#common/locales.ts";
import { FlaggedCover } from "./flagged-cover.tsx";

/** The outputs large: images with zoom (a preview with zoom and rotate), a video in a player. */
function Preview({ generation }: { generation: GenerationView }) {
  if (generation.status !== "succeeded" || generation.outputs.length === 0) {
    return (
      <div className="result-preview">
        <GenerationMedia generation={generation} eager />
      </div>
    );
  }
  return (
    <OutputMedia
      generation={generation}
      actions={(index) => <LightboxActions generation={generation} index={index} />}
    />
  );
}

/** A finished generation's outputs: its video with the player, or its images with zoom. */
export function OutputMedia({
  generation: g,
  actions,
}: {
  generation: Pick<GenerationView, "outputs" | "prompt"> & {
    params: { aspectRatio: GenerationView["params"]["aspectRatio"] };
  };
  /** What the enlarged view offers for the image shown (its index). */
  actions?: (index: number) => ReactNode;
}) {
  const { t } = useTranslation("studio");
  const video = g.outputs.find((o) => o.mimeType.startsWith("video/"));
  if (video) {
    return (
      <div className="result-preview">
        <video
          className="result-video"
          src={video.url}
          poster={video.thumbUrl ?? undefined}
          controls
          playsInline
          preload="metadata"
          style={{ aspectRatio: ratioCss(g.params.aspectRatio) }}
        />
      </div>
    );
  }
  return (
    <div className={`result-preview result-images result-images-${Math.min(g.outputs.length, 4)}`}>
      <Image.PreviewGroup
        preview={
          actions
            ? {
                actionsRender: (node, info) => (
                  <div className="result-lightbox-actions">
                    {node}
                    {actions(info.current)}
                  </div>
                ),
              }
            : undefined
        }
      >
        {g.outputs.map((o, i) => (
          <Image
            key={o.id}
            src={o.url}
            width="100%"
            alt={t("result.imageAlt", { n: i + 1, prompt: g.prompt })}
            style={{ aspectRatio: o.width && o.height ? `${o.width} / ${o.height}` : ratioCss(g.params.aspectRatio) }}
          />
        ))}
      </Image.PreviewGroup>
    </div>
  );
}

function seconds(from: string | null, to: string | null): number | null {
  if (!from || !to) return null;
  return Math.max(0, (new Date(to).getTime() - new Date(from).getTime()) / 1000);
}

/**
 * One generation: the preview, what was asked, what it cost, how long it took, its status (live while it runs) and
 * what can be done with it.
 */
export function ResultView({
  initial,
  publicByPlan = null,
}: {
  initial: GenerationView;
  /** The account's plan keeps its results public (the operator's choice), and the plan that keeps them private. */
  publicByPlan?: { plan: string | null } | null;
}) {
  const { t } = useTranslation("studio");
  const locale = usePageLocale();
  const { pathname } = useLocation();
  const navigate = useNavigate();
  const toast = useToast();
  const [g, setG] = useState(initial);
  // Polls and changes answer without the chain: the page's own read keeps it.
  const keep = (next: GenerationView) => setG({ ...next, parent: initial.parent, children: initial.children });
  const [busy, setBusy] = useState<"cancel" | "visibility" | "delete" | null>(null);
  const isVideo = g.kind === "video";

  useLiveGenerations([g], {
    locale,
    onChange: (next, before) => {
      keep(next);
      if (next.status !== before.status && !isOpen(next)) void refreshCredits();
    },
    onError: () =>
      toast.error(
        t(isVideo ? "messages:msg.generation.queryStatusFailed" : "messages:msg.generation.imageQueryFailed"),
      ),
  });

  const fail = (error: unknown) => toast.error(describeFailure(error).message ?? t("common:msg.unknownError"));
  const run = async (what: NonNullable<typeof busy>, action: () => Promise<void>) => {
    setBusy(what);
    try {
      await action();
    } catch (error) {
      fail(error);
    } finally {
      setBusy(null);
    }
  };

  const workspacePath = toolPath(g.tool);
  const listPath = isVideo ? toolPath(g.tool) : "/dashboard/image";
  const shareUrl =
    typeof window === "undefined" ? `/share/${g.id}` : `${window.location.origin}${hrefIn(pathname, `/share/${g.id}`)}`;
  const took = seconds(g.startedAt, g.finishedAt);
  const waited = seconds(g.createdAt, g.startedAt);
  const fmt = (n: number) => formatNumber(locale, n);

  return (
    <div className="dash-page result">
      <nav className="result-crumbs" aria-label={t("nav.breadcrumb")}>
        <Link to={hrefIn(pathname, listPath)}>{t(isVideo ? "nav.videos" : "nav.gallery")}</Link>
        <span aria-hidden> / </span>
        <Link to={hrefIn(pathname, workspacePath)}>{t(`tools.${g.tool}.title`)}</Link>
      </nav>
      <div className="result-layout">
        <div className="result-main">
          <FlaggedCover flagged={g.review === "flagged"}>
            <Preview generation={g} />
          </FlaggedCover>
          {g.review === "flagged" && (
            <Alert type="warning" showIcon className="result-flagged" title={t("review.flagged")} />
          )}
          {g.model.offline && g.status !== "failed" && g.status !== "canceled" && <DemoNotice />}
          {isOpen(g) && (
            <div className="result-running">
              <ProgressBlock generation={g} />
            </div>
          )}
          {g.status === "failed" && g.error && (
            <Alert
              type="error"
              showIcon
              role="alert"
              title={t(g.error.messageKey, { ns: "common" })}
              description={t("result.refunded")}
            />
          )}
          {g.status === "canceled" && <Alert type="info" showIcon title={t("result.canceled")} />}
        </div>
        <aside className="result-side">
          <div className="result-status-row">
            <StatusTag status={g.status} />
            {g.model.offline && <OfflineTag />}
          </div>
          <Typography.Title level={1} className="result-title">
            {t(`tools.${g.tool}.title`)}
          </Typography.Title>
          <section className="result-prompt" aria-label={t("form.prompt")}>
            <Typography.Paragraph className="result-prompt-text">{g.prompt}</Typography.Paragraph>
            <Button
              size="small"
              icon={<CopyOutlined />}
              onClick={async () =>
                (await copyText(g.prompt))
                  ? toast.success(t("common:msg.copySuccess"))
                  : toast.error(t("common:msg.copyFailed"))
              }
            >
              {t("actions.copyPrompt")}
            </Button>
          </section>
          <Space wrap className="result-actions">
            {g.status === "succeeded" &&
              g.outputs.map((o, i) => (
                <Button key={o.id} icon={<DownloadOutlined />} href={`${o.url}?download`} download>
                  {g.outputs.length > 1 ? t("actions.downloadN", { n: i + 1 }) : t("actions.download")}
                </Button>
              ))}
            <Button
              icon={<RedoOutlined />}
              onClick={() => void navigate(`${hrefIn(pathname, workspacePath)}?from=${g.id}`)}
            >
              {t("actions.reuse")}
            </Button>
            {isOpen(g) && (
              <Button
                danger
                icon={<StopOutlined />}
                loading={busy === "cancel"}
                onClick={() =>
                  void run("cancel", async () => {
                    keep(await cancelGeneration(g.id, locale));
                    void refreshCredits();
                    toast.success(t("result.canceledToast"));
                  })
                }
              >
                {t("actions.cancel")}
              </Button>
            )}
            <Popconfirm
              title={t("actions.deleteConfirmTitle")}
              description={t("actions.deleteConfirm")}
              okText={t("actions.delete")}
              okButtonProps={{ danger: true }}
              cancelText={t("common:action.cancel")}
              onConfirm={() =>
                run("delete", async () => {
                  await deleteGeneration(g.id, locale);
                  void refreshCredits();
                  toast.success(t("result.deleted"));
                  void navigate(hrefIn(pathname, listPath), { replace: true });
                })
              }
            >
              <Button danger icon={<DeleteOutlined />} loading={busy === "delete"}>
                {t("actions.delete")}
              </Button>
            </Popconfirm>
          </Space>
          <ResultActions generation={g} />
          <Chain generation={g} />
          {g.status === "succeeded" && (
            <section className="result-share" aria-label={t("share.title")}>
              <label className="result-share-toggle">
                <Switch
                  checked={g.visibility === "public"}
                  disabled={g.review === "flagged" || (publicByPlan !== null && g.visibility === "public")}
                  loading={busy === "visibility"}
                  onChange={(on) =>
                    void run("visibility", async () => {
                      keep(await setGenerationVisibility(g.id, on ? "public" : "private", locale));
                      toast.success(t(on ? "share.madePublic" : "share.madePrivate"));
                    })
                  }
                />
                <span>{t("share.public")}</span>
              </label>
              <p className="studio-hint">{t(g.visibility === "public" ? "share.publicHint" : "share.privateHint")}</p>
              {publicByPlan && g.visibility === "public" && (
                <p className="studio-hint" data-testid="public-by-plan">
                  {publicByPlan.plan
                    ? t("share.publicByPlan", { plan: publicByPlan.plan })
                    : t("share.publicByPlanNoOffer")}{" "}
                  {publicByPlan.plan && <Link to={hrefIn(pathname, "/pricing#plans")}>{t("form.seePlans")}</Link>}
                </p>
              )}
              {g.visibility === "public" && (
                <Space.Compact className="result-share-link">
                  <Input readOnly value={shareUrl} aria-label={t("share.link")} onFocus={(e) => e.target.select()} />
                  <Button
                    icon={<CopyOutlined />}
                    onClick={async () =>
                      (await copyText(shareUrl))
                        ? toast.success(t("common:msg.copySuccess"))
                        : toast.error(t("common:msg.copyFailed"))
                    }
                  >
                    {t("share.copy")}
                  </Button>
                </Space.Compact>
              )}
            </section>
          )}
          <Descriptions column={1} size="small" className="result-details" title={t("result.details")}>
            <Descriptions.Item label={t("form.model")}>{g.model.name}</Descriptions.Item>
            {g.negativePrompt && (
              <Descriptions.Item label={t("form.negativePrompt")}>{g.negativePrompt}</Descriptions.Item>
            )}
            <Descriptions.Item label={t("form.aspectRatio")}>{g.params.aspectRatio}</Descriptions.Item>
            {!isVideo && <Descriptions.Item label={t("form.count")}>{fmt(g.params.count)}</Descriptions.Item>}
            {g.params.style && (
              <Descriptions.Item label={t("form.style")}>{t(`styles.${g.params.style}.name`)}</Descriptions.Item>
            )}
            {g.params.duration && (
              <Descriptions.Item label={t("form.duration")}>
                {t("seconds", { count: g.params.duration })}
              </Descriptions.Item>
            )}
            {g.params.seed !== undefined && (
              <Descriptions.Item label={t("form.seed")}>{g.params.seed}</Descriptions.Item>
            )}
            {g.params.strength !== undefined && (
              <Descriptions.Item label={t("form.strengthLabel")}>
                {Math.round(g.params.strength * 100)}%
              </Descriptions.Item>
            )}
            <Descriptions.Item label={t("result.cost")}>
              {g.creditsCharged !== null
                ? t("credits", { count: g.creditsCharged, formatted: fmt(g.creditsCharged) })
                : t("result.held", { count: g.creditsHeld, formatted: fmt(g.creditsHeld) })}
            </Descriptions.Item>
            <Descriptions.Item label={t("result.created")}>{formatDate(locale, g.createdAt)}</Descriptions.Item>
            {waited !== null && (
              <Descriptions.Item label={t("result.waited")}>
                {t("seconds", { count: Math.round(waited * 10) / 10 })}
              </Descriptions.Item>
            )}
            {took !== null && (
              <Descriptions.Item label={t("result.took")}>
                {t("seconds", { count: Math.round(took * 10) / 10 })}
              </Descriptions.Item>
            )}
          </Descriptions>
          {g.status === "succeeded" && (
            <p className="result-verify">
              <Link to={hrefIn(pathname, "/verify")}>{t("common:verifyLink")}</Link>
            </p>
          )}
        </aside>
      </div>
    </div>
  );
}
