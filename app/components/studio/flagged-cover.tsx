import { useId, type ReactNode } from "react";
import { useTranslation } from "react-i18next";

/**
 * A flagged result as its owner sees it: blurred, with a switch to show it. The switch is a native checkbox the
 * stylesheet reads, so it works before the page's scripts arrive.
 */
export function FlaggedCover({ flagged, children }: { flagged: boolean; children: ReactNode }) {
  const { t } = useTranslation("studio");
  const id = useId();
  if (!flagged) return <>{children}</>;
  return (
    <div className="flagged-cover">
      <input type="checkbox" id={id} className="flagged-toggle" />
      <div className="flagged-media">{children}</div>
      <label htmlFor={id} className="flagged-label">
        <span className="flagged-show">{t("review.show")}</span>
        <span className="flagged-hide">{t("review.hide")}</span>
      </label>
    </div>
  );
}
