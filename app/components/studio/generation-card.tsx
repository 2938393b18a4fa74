import { Button } from "antd";
import {
  ExclamationCircleOutlined,
  GlobalOutlined,
  LockOutlined,
  PlayCircleOutlined,
  StopOutlined,
} from "@ant-design/icons";
import { useTranslation } from "react-i18next";
import { Link, useLocation } from "react-router";
import { isOpen, resultPath, type GenerationView } from "#app/lib/generations.ts";
import { OfflineTag, ProgressBlock, StatusTag, usePageLocale } from "#app/components/studio/parts.tsx";
import { RelativeTime } from "#app/components/relative-time.tsx";
import { hrefIn } from "#common/locales.ts";

/** `16:9` → `16 / 9`, for CSS aspect-ratio: the card keeps its shape before, during and after the job. */
export const ratioCss = (ratio: string) => ratio.replace(":", " / ");

/** The picture area of a generation: its outputs when done, its progress while running, why it failed otherwise. */
export function GenerationMedia({ generation, eager = false }: { generation: GenerationView; eager?: boolean }) {
  const { t } = useTranslation("studio");
  const g = generation;
  const style = { aspectRatio: ratioCss(g.params.aspectRatio) };
  if (g.status === "succeeded" && g.outputs.length > 0) {
    return (
      <div className={`gen-media gen-media-${Math.min(g.outputs.length, 4)}`} style={style}>
        {g.outputs.slice(0, 4).map((o, i) =>
          o.mimeType.startsWith("video/") ? (
            <span key={o.id} className="gen-media-video">
              {o.thumbUrl ? <img src={o.thumbUrl} alt="" loading={eager ? "eager" : "lazy"} /> : null}
              <PlayCircleOutlined className="gen-media-play" aria-hidden />
            </span>
          ) : (
            <img
              key={o.id}
              src={o.thumbUrl ?? o.url}
              alt={t("result.imageAlt", { n: i + 1, prompt: g.prompt })}
              loading={eager ? "eager" : "lazy"}
              width={o.width ?? undefined}
              height={o.height ?? undefined}
            />
          ),
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
}: {
  generation: GenerationView;
  onCancel?: (g: GenerationView) => void;
  canceling?: boolean;
}) {
  const { t } = useTranslation("studio");
  const { pathname } = useLocation();
  const locale = usePageLocale();
  const g = generation;
  const to = hrefIn(pathname, resultPath(g));
  return (
    <article className="gen-card" data-status={g.status} data-id={g.id}>
      <Link to={to} className="gen-card-media" aria-label={t("result.open", { prompt: g.prompt })}>
        <GenerationMedia generation={g} />
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
