import { useEffect, useRef } from "react";
import { useTranslation } from "react-i18next";
import { Link, useLocation } from "react-router";
import { hrefIn } from "#common/locales.ts";
import type { ExploreItem } from "#server/modules/explore/listing.ts";
import { LikeButton } from "./like-button.tsx";

/** An item as the pages send it: the model named in the visitor's language. */
export type ExploreCardItem = ExploreItem & { model: string };

/**
 * A video in the grid: its poster first; it plays muted while the pointer is over it, or, on a touch screen, while
 * it is in view, unless the visitor asked for reduced motion.
 */
function GridVideo({ item }: { item: ExploreCardItem }) {
  const ref = useRef<HTMLVideoElement>(null);
  useEffect(() => {
    const video = ref.current;
    if (!video || !window.matchMedia("(hover: none)").matches) return;
    if (window.matchMedia("(prefers-reduced-motion: reduce)").matches) return;
    const observer = new IntersectionObserver(
      ([entry]) => {
        if (entry?.isIntersecting) void video.play().catch(() => {});
        else video.pause();
      },
      { threshold: 0.6 },
    );
    observer.observe(video);
    return () => observer.disconnect();
  }, []);
  return (
    <video
      ref={ref}
      poster={item.still}
      src={item.video ?? undefined}
      width={item.width ?? undefined}
      height={item.height ?? undefined}
      muted
      loop
      playsInline
      preload="none"
      onMouseEnter={(e) => void e.currentTarget.play().catch(() => {})}
      onMouseLeave={(e) => e.currentTarget.pause()}
    />
  );
}

/** One public result in a grid: its media (opening its page), its prompt in its own language, model and likes. */
export function ExploreCard({ item, signedIn, eager }: { item: ExploreCardItem; signedIn: boolean; eager?: boolean }) {
  const { t } = useTranslation("explore");
  const { pathname } = useLocation();
  const label = item.prompt.length > 120 ? `${item.prompt.slice(0, 117)}…` : item.prompt;
  return (
    <article className="explore-card" data-testid="explore-card" data-id={item.id}>
      <Link
        to={hrefIn(pathname, `/share/${item.id}`)}
        className="explore-card-media"
        aria-label={t("card.open", { prompt: label })}
        style={item.width && item.height ? { aspectRatio: `${item.width} / ${item.height}` } : undefined}
      >
        {item.video ? (
          <GridVideo item={item} />
        ) : (
          <img
            src={item.still}
            alt=""
            loading={eager ? "eager" : "lazy"}
            decoding="async"
            width={item.width ?? 512}
            height={item.height ?? 512}
          />
        )}
        {item.kind === "video" && <span className="explore-card-badge">{t("card.video")}</span>}
      </Link>
      <div className="explore-card-body">
        <p className="explore-card-prompt" lang={item.promptLang ?? undefined} dir="auto">
          {item.prompt}
        </p>
        <div className="explore-card-meta">
          <span className="explore-card-model">{item.model}</span>
          {item.creator && (
            <Link to={hrefIn(pathname, `/u/${item.creator.handle}`)} className="explore-card-creator">
              @{item.creator.handle}
            </Link>
          )}
          <LikeButton id={item.id} liked={item.liked} likes={item.likes} signedIn={signedIn} />
        </div>
      </div>
    </article>
  );
}
