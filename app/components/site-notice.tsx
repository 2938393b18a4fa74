import { useTranslation } from "react-i18next";

export interface SiteNoticeData {
  announcement: { tone: "info" | "warning"; text: string } | null;
  maintenance: boolean;
}

/** The administrators' announcement and the maintenance notice, above every page (no script needed). */
export function SiteNotice({ notice }: { notice: SiteNoticeData }) {
  const { t } = useTranslation();
  if (!notice.announcement && !notice.maintenance) return null;
  return (
    <div className="site-notice" role="region" aria-label={t("siteNotice.label")}>
      {notice.maintenance && <p className="site-notice-item site-notice-warning">{t("siteNotice.maintenance")}</p>}
      {notice.announcement && (
        <p className={`site-notice-item site-notice-${notice.announcement.tone}`}>{notice.announcement.text}</p>
      )}
    </div>
  );
}
