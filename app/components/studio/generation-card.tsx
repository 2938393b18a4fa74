import { Button } from "antd";
import {
  ExclamationCircleOutlined,
  GlobalOutlined,
  LockOutlined,
  PlayCircleOutlined,
  StopOutlined,
} from "#app/components/antd-icons.ts";
import { useTranslation } from "react-i18next";
import { Link, useLocation } from "react-router";
import { isOpen, resultPath, type GenerationView } from "#app/lib/generations.ts";
import { OfflineTag, ProgressBlock, StatusTag, usePageLocale } from "#app/components/studio/parts.tsx";
import { RelativeTime } from "#app/components/relative-time.tsx";
import { CardActions } from "#app/components/studio/chain.tsx";
import { hrefIn } from "#common/locales.ts";

/** `16:9` → `16 / 9`, for CSS aspect-ratio: the card keeps its shape before, during and after the job. */
export const ratioCss = (ratio: string) => ratio.replace(":", " / ");

/**
 * The picture area of a generation: its outputs when done, its progress while running, why it failed otherwise.
 * A result of several images shows its first whole, with "+N" for the others (each image cut into a strip of a card
 * showed none of them well). `aspect` gives every card of a grid the same shape (images and videos side by side);
 * the picture then covers it.
 */
export function GenerationMedia({
  generation,
  eager = false,
  aspect,
}: {
  generation: GenerationView;
  eager?: boolean;
  aspect?: string;
}) {
  const { t } = useTranslation("studio");
  const g = generation;
  const style = { aspectRatio: ratioCss(aspect ?? g.params.aspectRatio) };
  const first = g.status === "succeeded" ? g.outputs[0] : undefined;
  if (first) {
    const more = g.outputs.length - 1;
    return (
      <div className={`gen-media gen-media-done${g.review === "flagged" ? " gen-media-flagged" : ""}`} style={style}>
        {first.mimeType.startsWith("video/") ? (
          <span className="gen-media-video">
            {first.thumbUrl ? <img src={first.thumbUrl} alt="" loading={eager ? "eager" : "lazy"} /> : null}
            <PlayCircleOutlined className="gen-media-play" aria-hidden />
          </span>
        ) : (
          <img
            src={first.thumbUrl ?? first.url}
            alt={t("result.imageAlt", { n: 1, prompt: g.prompt })}
            loading={eager ? "eager" : "lazy"}
            width={first.width ?? undefined}
            height={first.height ?? undefined}
          />
        )}
        {g.review === "flagged" && <span className="gen-media-flag">{t("review.badge")}</span>}
        {more > 0 && (
          <span className="gen-media-more" data-testid="gen-media-more">
            <span aria-hidden>+{more}</span>
            <span className="sr-only">{t("result.moreImages", { count: more })}</span>
          </span>
        )}
      </div>
    );
  }
  return (
    <div className={`gen-media gen-media-empty is-${g.status}`} style={style}>
      {isOpen(g) ? (
        <ProgressBlock generation={g} />
      ) : g.status === "failed" ? (
        <span className="gen-media-note">
          <ExclamationCircleOutlined aria-hidden /> {g.error ? t(g.error.messageKey, { ns: "common" }) : ""}
        </span>
      ) : (
        <span className="gen-media-note">
          <StopOutlined aria-hidden /> {t("status.canceled")}
        </span>
      )}
    </div>
  );
}

/** One generation in a list: picture area, prompt, status, tool, who may see it, and a way to stop it while it runs. */
export function GenerationCard({
  generation,
  onCancel,
  canceling,
  aspect,
}: {
  generation: GenerationView;
  onCancel?: (g: GenerationView) => void;
  canceling?: boolean;
  /** One shape for every card of a grid (`4:3`), rather than the generation's own. */
  aspect?: string;
}) {
  const { t } = useTranslation("studio");
  const { pathname } = useLocation();
  const locale = usePageLocale();
  const g = generation;
  const to = hrefIn(pathname, resultPath(g));
  return (
    <article className="gen-card" data-status={g.status} data-id={g.id}>
      <Link to={to} className="gen-card-media" aria-label={t("result.open", { prompt: g.prompt })}>
        <GenerationMedia generation={g} aspect={aspect} />
      </Link>
      <div className="gen-card-body">
        <Link to={to} className="gen-card-prompt" title={g.prompt}>
          {g.prompt}
        </Link>
        <div className="gen-card-meta">
          <StatusTag status={g.status} />
          {g.model.offline && <OfflineTag />}
          <span className="gen-card-tool">{t(`tools.${g.tool}.title`)}</span>
          <span className={`gen-card-visibility is-${g.visibility}`}>
            {g.visibility === "public" ? <GlobalOutlined aria-hidden /> : <LockOutlined aria-hidden />}{" "}
            {t(`visibility.${g.visibility}`)}
          </span>
          <span className="gen-card-model">{g.model.name}</span>
          <RelativeTime locale={locale} date={g.createdAt} />
          <CardActions generation={g} />
          {isOpen(g) && onCancel && (
            <Button size="small" type="text" danger loading={canceling} onClick={() => onCancel(g)}>
              {t("actions.cancel")}
            </Button>
          )}
        </div>
      </div>
    </article>
  );
}
