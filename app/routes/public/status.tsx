import { useEffect } from "react";
import { useTranslation } from "react-i18next";
import { useRevalidator } from "react-router";
import type { Route } from "./+types/status";
import { seoMeta } from "#app/seo.ts";
import { requestInfoContext } from "#app/context.ts";
import { pageMeta } from "#app/lib/page.server.ts";
import { serverContextOf } from "#app/lib/request.server.ts";
import { Paragraph, Title } from "#app/components/ui/typography.tsx";
import { REFLOW_TABLE } from "#app/components/ui/reflow-table.ts";
import { STATUS_TTL_MS, getSystemStatus, type Outcomes, type State } from "#server/modules/status/system-status.ts";
import { formatDate, formatNumber, formatSeconds } from "#common/format.ts";
import type { Locale } from "#common/locales.ts";

export const meta = ({ loaderData }: Route.MetaArgs) => seoMeta(loaderData?.seo);

// Live figures: a shared cache or the page cache may keep the page only as long as the reading behind it.
export const headers: Route.HeadersFunction = ({ parentHeaders }) => {
  const headers = new Headers(parentHeaders);
  headers.set("Cache-Control", `public, max-age=${STATUS_TTL_MS / 1000}`);
  return headers;
};

/** How often an open status page reads the state again. */
const REFRESH_MS = 30_000;

/** Outcomes over a period as the page shows them: the share that succeeded of how many, and the run times. */
function period(locale: Locale, outcomes: Outcomes) {
  const seconds = (value: number | null) => (value === null ? null : formatSeconds(locale, value));
  return {
    finished: outcomes.finished,
    rate:
      outcomes.successRate === null
        ? null
        : formatNumber(locale, outcomes.successRate, { style: "percent", maximumFractionDigits: 1 }),
    p50: seconds(outcomes.p50Seconds),
    p95: seconds(outcomes.p95Seconds),
  };
}

/**
 * `/test`: the system's live state for anyone: the build, each service, each model's availability and speed from
 * its real jobs of the last hour and day, and the queue. No secrets and nothing about any user.
 */
export async function loader({ context, request }: Route.LoaderArgs) {
  const { runtime } = serverContextOf(context);
  const { i18n, seo, locale } = pageMeta(context, request, ["status"], (t, site) => ({
    title: t("status:title"),
    description: t("status:description", { site: site.name }),
  }));
  const status = await getSystemStatus(runtime);
  const { build } = context.get(requestInfoContext);
  return {
    seo,
    i18n,
    overall: status.overall,
    checkedAt: status.checkedAt,
    checkedAtText: formatDate(locale, status.checkedAt),
    build: {
      version: build.version,
      id: build.id,
      builtAt: build.timestamp ? formatDate(locale, build.timestamp) : null,
    },
    components: status.components,
    queue: status.queue && {
      queued: formatNumber(locale, status.queue.queued),
      processing: formatNumber(locale, status.queue.processing),
      videoWait: status.queue.videoWaitSeconds === null ? null : formatSeconds(locale, status.queue.videoWaitSeconds),
    },
    models: status.models.map((model) => ({
      id: model.id,
      name: model.name,
      kind: model.kind,
      state: model.state,
      lastHour: period(locale, model.lastHour),
      lastDay: period(locale, model.lastDay),
    })),
  };
}

function StateBadge({ state }: { state: State }) {
  const { t } = useTranslation("status");
  return (
    <span className={`status-badge status-${state}`}>
      <span className="status-dot" aria-hidden />
      {t(`state.${state}`)}
    </span>
  );
}

export default function StatusPage({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("status");
  const { overall, build, components, queue, models } = loaderData;
  const revalidator = useRevalidator();
  // An open page keeps itself current while it is looked at
  useEffect(() => {
    const timer = setInterval(() => {
      if (document.visibilityState === "visible" && revalidator.state === "idle") void revalidator.revalidate();
    }, REFRESH_MS);
    return () => clearInterval(timer);
  }, [revalidator]);
  const outcome = (p: (typeof models)[number]["lastHour"]) =>
    p.finished === 0 ? (
      <span className="status-muted">{t("models.noJobs")}</span>
    ) : (
      <>
        <span className="status-rate">{p.rate}</span>{" "}
        <span className="status-muted">{t("models.jobs", { count: p.finished })}</span>
      </>
    );
  return (
    <div className="page-wide status-page">
      <Title level={1}>{t("title")}</Title>
      <div className={`status-overall status-overall-${overall}`} role="status">
        <span className={`status-badge status-${overall}`} aria-hidden>
          <span className="status-dot" />
        </span>
        <span className="status-overall-text">{t(`overall.${overall}`)}</span>
        <time className="status-checked" dateTime={loaderData.checkedAt}>
          {t("checkedAt", { time: loaderData.checkedAtText })}
        </time>
      </div>
      <p className="status-build">
        {t("build", { version: build.version, id: build.id })}
        {build.builtAt && <> · {t("builtAt", { date: build.builtAt })}</>}
      </p>

      <section aria-labelledby="status-components">
        <h2 id="status-components" className="section-title">
          {t("components.title")}
        </h2>
        <ul className="status-list">
          {components.map((component) => (
            <li key={component.id}>
              <span className="status-name">
                {t(`components.${component.id}`)}
                {component.kind && <span className="status-muted"> · {t(`kind.${component.kind}`)}</span>}
              </span>
              <StateBadge state={component.state} />
            </li>
          ))}
        </ul>
      </section>

      {queue && (
        <section aria-labelledby="status-queue">
          <h2 id="status-queue" className="section-title">
            {t("queue.title")}
          </h2>
          <dl className="status-figures">
            <div>
              <dt>{t("queue.queued")}</dt>
              <dd>{queue.queued}</dd>
            </div>
            <div>
              <dt>{t("queue.processing")}</dt>
              <dd>{queue.processing}</dd>
            </div>
            {queue.videoWait && (
              <div>
                <dt>{t("queue.videoWait")}</dt>
                <dd>{t("queue.about", { duration: queue.videoWait })}</dd>
              </div>
            )}
          </dl>
        </section>
      )}

      <section aria-labelledby="status-models">
        <h2 id="status-models" className="section-title">
          {t("models.title")}
        </h2>
        <div className="status-table-wrap">
          <table className={`status-table ${REFLOW_TABLE}`}>
            <thead>
              <tr>
                <th scope="col">{t("models.model")}</th>
                <th scope="col">{t("models.state")}</th>
                <th scope="col">{t("models.lastHour")}</th>
                <th scope="col">{t("models.lastDay")}</th>
                <th scope="col">{t("models.duration")}</th>
              </tr>
            </thead>
            <tbody>
              {models.map((model) => (
                <tr key={model.id}>
                  <th scope="row">
                    {model.name}
                    <span className="status-muted status-kind">{t(`models.${model.kind}`)}</span>
                  </th>
                  <td data-label={t("models.state")}>
                    <StateBadge state={model.state} />
                  </td>
                  <td data-label={t("models.lastHour")}>
                    {model.state === "not_configured" ? "—" : outcome(model.lastHour)}
                  </td>
                  <td data-label={t("models.lastDay")}>
                    {model.state === "not_configured" ? "—" : outcome(model.lastDay)}
                  </td>
                  <td data-label={t("models.duration")}>
                    {model.lastDay.p50 ? `${model.lastDay.p50} / ${model.lastDay.p95}` : "—"}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>

      <Paragraph type="secondary" className="status-about">
        {t("about")} <a href="/test.json">{t("json")}</a>
      </Paragraph>
    </div>
  );
}
