import { Tag, Typography } from "antd";
import { useTranslation } from "react-i18next";
import type { ModelCheckView } from "#server/modules/generation/model-checks.ts";
import { formatRelative, formatSeconds } from "#common/format.ts";
import type { Locale } from "#common/locales.ts";

const HEALTH_COLORS = { running: "processing", succeeded: "success", failed: "error" } as const;

/** A provider's latest health test: testing, working (and how long it took) or failing (and why), and when. */
export function HealthLine({
  provider,
  check,
  locale,
  now,
}: {
  provider: string;
  check: ModelCheckView | null;
  locale: Locale;
  now: Date;
}) {
  const { t } = useTranslation("admin");
  if (!check)
    return (
      <span data-provider={provider} data-status="never">
        <Tag color="blue">{t("models.health.never", { provider })}</Tag>
      </span>
    );
  const label =
    check.status === "running"
      ? t("models.health.running", { provider })
      : check.status === "succeeded"
        ? t("models.health.succeeded", { provider, duration: formatSeconds(locale, (check.durationMs ?? 0) / 1000) })
        : t("models.health.failed", { provider, code: check.errorCode ?? "" });
  return (
    <span className="admin-stack" data-provider={provider} data-status={check.status}>
      <span>
        <Tag color={HEALTH_COLORS[check.status]}>{label}</Tag>
      </span>
      {check.status === "failed" && check.detail && (
        <Typography.Text type="secondary" className="admin-clip" title={check.detail}>
          {check.detail}
        </Typography.Text>
      )}
      <Typography.Text type="secondary">
        {t("models.health.when", { time: formatRelative(locale, check.createdAt, now), actor: check.actor })}
      </Typography.Text>
    </span>
  );
}
