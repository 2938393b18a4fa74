import type { KeyboardEvent, ReactNode } from "react";
import { Alert, Input, Progress, Select, Tag } from "antd";
import { useTranslation } from "react-i18next";
import { Link, useLocation } from "react-router";
import type { GenerationView, ModelView } from "#app/lib/generations.ts";
import { formatNumber } from "#common/format.ts";
import { isFormula, lowestUnitCredits } from "#app/lib/model-settings.ts";
import { PROMPT_MAX, type GenerationStatus } from "#common/generation.ts";
import { CONNECT_PROVIDER_PATH } from "#common/demo.ts";
import { hrefIn, isLocale, type Locale } from "#common/locales.ts";

export function usePageLocale(): Locale {
  const { i18n } = useTranslation();
  return isLocale(i18n.language) ? i18n.language : "en";
}

export function OfflineTag() {
  const { t } = useTranslation("common");
  return <span className="model-tag-offline">{t("generation.offlineDemo")}</span>;
}

/**
 * Says that a result is the offline demo's illustration, not a model's work, with a link to connecting a provider:
 * under one result, or once above a list that holds some.
 */
export function DemoNotice({ list = false }: { list?: boolean }) {
  const { t } = useTranslation("common");
  const { pathname } = useLocation();
  return (
    <Alert
      type="info"
      showIcon
      className="demo-notice"
      data-testid="demo-notice"
      title={t(list ? "generation.demoHistory" : "generation.demoNotice")}
      description={<Link to={hrefIn(pathname, CONNECT_PROVIDER_PATH)}>{t("generation.demoConnect")}</Link>}
    />
  );
}

/**
 * "1 credit / image", "6 credits / second"; a price whose settings change it (a resolution, sound, a quality…) or
 * that has a minimum reads "from 3 credits / second", its cheapest unit.
 */
export function PriceLabel({ model }: { model: Pick<ModelView, "price"> }) {
  const { t } = useTranslation("studio");
  if (!isFormula(model.price)) return <>{t(`price.${model.price.unit}`, { count: model.price.credits })}</>;
  const unit = t(`price.${model.price.unit}`, { count: lowestUnitCredits(model.price) });
  return <>{t("price.from", { price: unit })}</>;
}

/** The models for a tool, each with its price and, where it applies, the "Offline demo" tag. */
export function ModelSelect({
  id,
  models,
  value,
  onChange,
}: {
  id: string;
  models: ModelView[];
  value: string;
  onChange: (id: string) => void;
}) {
  return (
    <Select
      id={id}
      className="studio-model-select"
      value={value}
      onChange={onChange}
      // A catalog of many models is found by typing part of a name.
      showSearch={models.length > 6 ? { optionFilterProp: "title" } : false}
      options={models.map((m) => ({
        value: m.id,
        label: (
          <span className="studio-model-option">
            <span className="studio-model-name">{m.name}</span>
            {m.offline && <OfflineTag />}
          </span>
        ),
        title: m.name,
      }))}
      // The open list shows each price too; the closed select only the name.
      optionRender={(option) => {
        const m = models.find((x) => x.id === option.value)!;
        return (
          <span className="studio-model-option">
            <span className="studio-model-name">{m.name}</span>
            {m.offline && <OfflineTag />}
            <span className="studio-model-price">
              <PriceLabel model={m} />
            </span>
          </span>
        );
      }}
    />
  );
}

/** The prompt: a character counter, and Ctrl/Cmd+Enter submits the form. */
export function PromptField({
  id,
  value,
  onChange,
  onSubmit,
  placeholder,
  rows = 4,
  invalid,
  describedBy,
}: {
  id: string;
  value: string;
  onChange: (value: string) => void;
  onSubmit?: () => void;
  placeholder?: string;
  rows?: number;
  invalid?: boolean;
  describedBy?: string;
}) {
  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey) && onSubmit) {
      e.preventDefault();
      onSubmit();
    }
  };
  return (
    <Input.TextArea
      id={id}
      value={value}
      onChange={(e) => onChange(e.target.value)}
      onKeyDown={onKeyDown}
      placeholder={placeholder}
      maxLength={PROMPT_MAX}
      showCount
      autoSize={{ minRows: rows, maxRows: 12 }}
      status={invalid ? "error" : undefined}
      aria-invalid={invalid || undefined}
      aria-describedby={describedBy}
    />
  );
}

/** What the request costs and what remains after it; a short balance says so, with the way to top up. */
export function CostLine({ cost, available }: { cost: number; available: number | null }) {
  const { t } = useTranslation("studio");
  const locale = usePageLocale();
  const { pathname } = useLocation();
  const after = available === null ? null : available - cost;
  return (
    <div className="studio-cost" aria-live="polite">
      <span>
        {t("form.cost")} <strong>{t("credits", { count: cost, formatted: formatNumber(locale, cost) })}</strong>
      </span>
      {after !== null && after >= 0 && (
        <span className="studio-cost-after">
          {t("form.balanceAfter")} <strong>{formatNumber(locale, after)}</strong>
        </span>
      )}
      {after !== null && after < 0 && (
        <span className="studio-cost-short">
          {t("form.notEnough")} <Link to={hrefIn(pathname, "/pricing")}>{t("form.topUp")}</Link>
        </span>
      )}
    </div>
  );
}

const STATUS_COLORS: Record<GenerationStatus, string> = {
  queued: "default",
  processing: "processing",
  succeeded: "success",
  failed: "error",
  canceled: "warning",
};

export function StatusTag({ status }: { status: GenerationStatus }) {
  const { t } = useTranslation("studio");
  return (
    <Tag color={STATUS_COLORS[status]} className="studio-status">
      {t(`status.${status}`)}
    </Tag>
  );
}

/** A running job: the progress bar and the time it should still take. */
export function ProgressBlock({
  generation,
}: {
  generation: Pick<GenerationView, "status" | "progress" | "etaSeconds"> & { queuePosition?: number | null };
}) {
  const { t } = useTranslation("studio");
  const queued = generation.status === "queued";
  const eta =
    generation.etaSeconds !== null && generation.etaSeconds > 0
      ? t("progress.remaining", { count: Math.ceil(generation.etaSeconds) })
      : null;
  return (
    <div className="studio-progress">
      <Progress
        percent={queued ? 0 : generation.progress}
        status="active"
        size="small"
        aria-label={t("progress.label")}
      />
      <span className="studio-progress-text">
        {queued
          ? // Where it stands in the queue and the wait for it to be done, when the server said.
            generation.queuePosition
            ? [t("progress.position", { position: generation.queuePosition }), eta].filter(Boolean).join(" · ")
            : t("progress.queued")
          : (eta ?? t("progress.finishing"))}
      </span>
    </div>
  );
}

/**
 * A failure as the user should read it: the catalogue's text for what was being done, with the server's reason (in
 * the page's language) under it; the not-enough-credits one links to the pricing page.
 */
export function FailureAlert({ code, message, fallback }: { code?: string; message?: string; fallback: string }) {
  const { t } = useTranslation("studio");
  const { pathname } = useLocation();
  const action: ReactNode =
    code === "insufficient_credits" ? (
      <Link to={hrefIn(pathname, "/pricing")}>{t("form.topUp")}</Link>
    ) : code === "plan_required" ? (
      <Link to={hrefIn(pathname, "/pricing")}>{t("form.seePlans")}</Link>
    ) : null;
  // The catalogue's message for what was being done, and the server's reason under it; an answer that was not the
  // server's has the catalogue's own message.
  const title = code === "parse_error" ? t("messages:msg.generation.parseResponseError") : fallback;
  return (
    <Alert
      type="error"
      showIcon
      role="alert"
      title={title}
      description={message && message !== title ? message : undefined}
      action={action}
    />
  );
}
