import { Button, Card, Input, Space, Tag, Typography, type TableColumnsType } from "antd";
import { useTranslation } from "react-i18next";
import { data, Form, Link, useLocation, useNavigation } from "react-router";
import type { Route } from "./+types/review";
import { pageMeta } from "#app/lib/page.server.ts";
import { seoMeta } from "#app/seo.ts";
import { requireAdmin } from "#app/lib/auth.server.ts";
import { formOf } from "#app/lib/request.server.ts";
import { pageOf } from "#app/lib/paging.ts";
import { PagedTable } from "#app/components/billing/paged-table.tsx";
import { ResultNotice, type AdminResult } from "#app/components/admin/user-actions.tsx";
import { listReviewQueue, type ReviewItem } from "#server/modules/safety/list-review-queue.ts";
import { listPromptRefusals, type RefusalRow } from "#server/modules/safety/list-prompt-refusals.ts";
import { reviewGeneration } from "#server/modules/safety/review-generation.ts";
import { reviewDecisionSchema } from "#server/modules/safety/schema.ts";
import { REVIEW_DECISIONS, type ReviewDecision } from "#common/review.ts";
import { AppError } from "#server/errors.ts";
import type { SafetyFinding } from "#common/safety.ts";
import { formatDate, formatNumber } from "#common/format.ts";
import { hrefIn, type Locale } from "#common/locales.ts";

const PAGE_SIZE = 10;
const REFUSALS_PAGE_SIZE = 25;

export const meta = ({ loaderData }: Route.MetaArgs) => seoMeta(loaderData?.seo);

export async function loader({ context, request }: Route.LoaderArgs) {
  const { db, runtime } = requireAdmin(context, request);
  const params = new URL(request.url).searchParams;
  const tab = params.get("tab") === "refused" ? ("refused" as const) : ("queue" as const);
  const page = pageOf(params.get("page"));
  const { locale, i18n, seo } = pageMeta(context, request, ["admin"], (t) => ({
    title: t("admin:review.title"),
    noindex: true,
  }));
  if (tab === "refused") {
    const refusals = await listPromptRefusals({ db, page, pageSize: REFUSALS_PAGE_SIZE });
    return {
      seo,
      i18n,
      locale,
      tab,
      queue: null,
      refusals: { ...refusals, page, pageSize: REFUSALS_PAGE_SIZE },
    };
  }
  const queue = await listReviewQueue({ db, page, pageSize: PAGE_SIZE });
  return {
    seo,
    i18n,
    locale,
    tab,
    refusals: null,
    queue: {
      total: queue.total,
      page,
      pageCount: Math.max(1, Math.ceil(queue.total / PAGE_SIZE)),
      // The files are private to their owner: the console shows them through short-lived signed links.
      rows: queue.rows.map((row) => ({
        ...row,
        thumbUrl: row.thumbAssetId ? runtime.mediaLinks.sign(`/media/${row.thumbAssetId}/thumb.webp`) : null,
      })),
    },
  };
}

export async function action({ context, request }: Route.ActionArgs) {
  const { db, actor, runtime } = requireAdmin(context, request);
  const form = await formOf(request);
  const id = String(form.get("id") ?? "");
  const intent = form.get("intent");
  if (!REVIEW_DECISIONS.includes(intent as ReviewDecision)) throw data({ messageKey: "error.400" }, { status: 400 });
  const parsed = reviewDecisionSchema.safeParse({ decision: intent, reason: form.get("reason") ?? "" });
  if (!parsed.success)
    return data<AdminResult>({ intent: id, error: "user.reasonRequired", field: "reason" }, { status: 400 });
  const { decision, reason } = parsed.data;
  try {
    const outcome = await reviewGeneration({
      db,
      storage: runtime.storage,
      boss: runtime.boss,
      siteUrl: runtime.site.url,
      id,
      decision,
      reason,
      actor,
    });
    // The home page's showcase in memory may show it, or should again.
    runtime.publicPages.changed();
    return {
      intent: id,
      ok: `review.done.${decision}`,
      values: { count: outcome.reports },
    } satisfies AdminResult;
  } catch (error) {
    // Sent twice, or decided by someone else meanwhile: said, never a failure.
    if (error instanceof AppError && error.code === "not_found")
      return data<AdminResult>({ intent: id, error: "review.gone" }, { status: 404 });
    if (error instanceof AppError && error.code === "conflict")
      return data<AdminResult>({ intent: id, error: `review.conflict.${decision}` }, { status: 409 });
    throw error;
  }
}

type QueueRow = ReviewItem & { thumbUrl: string | null };

/** A check's scores, the highest first, as percentages. */
function Scores({ scores, locale }: { scores: Record<string, number> | undefined; locale: Locale }) {
  const top = Object.entries(scores ?? {})
    .sort((a, b) => b[1] - a[1])
    .slice(0, 4);
  if (top.length === 0) return null;
  return (
    <span className="review-scores">
      {top.map(([category, score]) => (
        <span key={category}>
          {category} {formatNumber(locale, Math.round(score * 100))}%
        </span>
      ))}
    </span>
  );
}

/** What each check found, where it ran (prompt or output). */
function Findings({ findings, locale }: { findings: SafetyFinding[]; locale: Locale }) {
  const { t } = useTranslation("admin");
  if (findings.length === 0) return <Typography.Text type="secondary">{t("review.noChecks")}</Typography.Text>;
  return (
    <ul className="review-findings">
      {findings.map((f, i) => (
        <li key={`${f.source}-${i}`}>
          <Tag color={f.unavailable ? "default" : f.flagged ? "red" : "green"}>{t(`review.sources.${f.source}`)}</Tag>
          {f.unavailable ? (
            <Typography.Text type="secondary">{t("review.unavailable")}</Typography.Text>
          ) : (
            <span>{f.categories.length > 0 ? f.categories.join(", ") : t("review.nothingFound")}</span>
          )}
          <Scores scores={f.scores} locale={locale} />
        </li>
      ))}
    </ul>
  );
}

/** One generation waiting for a decision: its picture (blurred until shown), what it is, what was found and said. */
function ReviewCard({ row, locale, result }: { row: QueueRow; locale: Locale; result: AdminResult | undefined }) {
  const { t } = useTranslation("admin");
  const { pathname } = useLocation();
  const navigation = useNavigation();
  const busy = (decision: string) =>
    navigation.state === "submitting" &&
    navigation.formData?.get("id") === row.id &&
    navigation.formData.get("intent") === decision;
  const checks = [
    ...(row.safety?.prompt ?? []).map((f) => ({ ...f, on: "prompt" as const })),
    ...(row.safety?.output ?? []).map((f) => ({ ...f, on: "output" as const })),
  ];
  const toggle = `review-show-${row.id}`;
  return (
    <Card className="review-item" data-testid="review-item" data-id={row.id}>
      <div className="review-item-grid">
        <div className="review-media">
          {row.thumbUrl ? (
            <>
              {/* A checkbox and its label: the picture is shown and blurred again without any script. */}
              <input type="checkbox" id={toggle} className="review-show" />
              <div className="review-thumb">
                <img src={row.thumbUrl} alt="" loading="lazy" />
              </div>
              <label htmlFor={toggle} className="review-show-label">
                <span className="review-show-on">{t("review.show")}</span>
                <span className="review-show-off">{t("review.blur")}</span>
              </label>
            </>
          ) : (
            <div className="review-thumb review-thumb-none">{t("review.noPicture")}</div>
          )}
        </div>
        <div className="review-body">
          <Space size={4} wrap>
            {row.review === "flagged" && <Tag color="red">{t("review.flagged")}</Tag>}
            {row.reports.length > 0 && (
              <Tag color="orange">
                {t("review.reportCount", {
                  count: row.reports.length,
                  formatted: formatNumber(locale, row.reports.length),
                })}
              </Tag>
            )}
            <Tag color={row.visibility === "public" ? "blue" : "default"}>
              {t(row.visibility === "public" ? "generations.public" : "review.private")}
            </Tag>
            {row.safety?.wantedPublic && row.visibility !== "public" && (
              <Tag color="blue">{t("review.wantedPublic")}</Tag>
            )}
          </Space>
          <Typography.Paragraph className="review-prompt">{row.prompt}</Typography.Paragraph>
          <dl className="review-facts">
            <div>
              <dt>{t("generations.columns.owner")}</dt>
              <dd>
                <Link to={hrefIn(pathname, `/user/admin/users/${row.userId}`)}>{row.email}</Link>
                {row.banned && (
                  <Tag color="red" className="review-banned">
                    {t("review.banned")}
                  </Tag>
                )}
              </dd>
            </div>
            <div>
              <dt>{t("user.columns.model")}</dt>
              <dd>
                <code>{row.modelId}</code>
              </dd>
            </div>
            <div>
              <dt>{t("user.columns.date")}</dt>
              <dd>
                <Link to={hrefIn(pathname, `/user/admin/generations/${row.id}`)}>
                  {formatDate(locale, row.createdAt)}
                </Link>
              </dd>
            </div>
          </dl>
          <Typography.Title level={3} className="review-heading">
            {t("review.checks")}
          </Typography.Title>
          {checks.length === 0 ? (
            <Typography.Text type="secondary">{t("review.noChecks")}</Typography.Text>
          ) : (
            <>
              {(["prompt", "output"] as const).map((on) => {
                const found = checks.filter((c) => c.on === on);
                return (
                  found.length > 0 && (
                    <div key={on} className="review-check-group">
                      <Typography.Text type="secondary">{t(`review.on.${on}`)}</Typography.Text>
                      <Findings findings={found} locale={locale} />
                    </div>
                  )
                );
              })}
            </>
          )}
          {row.reports.length > 0 && (
            <>
              <Typography.Title level={3} className="review-heading">
                {t("review.reports")}
              </Typography.Title>
              <ul className="review-reports">
                {row.reports.map((report) => (
                  <li key={report.id} data-testid="review-report">
                    <strong>{t(`review.reasons.${report.reason}`)}</strong>
                    <Typography.Text type="secondary">
                      {" · "}
                      {formatDate(locale, report.createdAt)}
                      {report.signedIn && ` · ${t("review.signedIn")}`}
                    </Typography.Text>
                    {report.note && <q className="review-note">{report.note}</q>}
                  </li>
                ))}
              </ul>
            </>
          )}
          {result?.intent === row.id && <ResultNotice result={result} />}
          <Form method="post" className="review-actions" preventScrollReset>
            <input type="hidden" name="id" value={row.id} />
            <label htmlFor={`reason-${row.id}`}>
              <Typography.Text strong>{t("review.decide")}</Typography.Text>
            </label>
            <Input
              id={`reason-${row.id}`}
              name="reason"
              maxLength={500}
              required
              placeholder={t("user.reasonPlaceholder")}
              status={result?.intent === row.id && result.field === "reason" ? "error" : undefined}
            />
            <div className="review-buttons">
              {REVIEW_DECISIONS.map((decision) => (
                <Button
                  key={decision}
                  htmlType="submit"
                  name="intent"
                  value={decision}
                  type={decision === "clear" ? "primary" : "default"}
                  danger={decision !== "clear"}
                  loading={busy(decision)}
                >
                  {t(`review.actions.${decision}`)}
                </Button>
              ))}
            </div>
            <Typography.Text type="secondary">{t("review.actionsHint")}</Typography.Text>
          </Form>
        </div>
      </div>
    </Card>
  );
}

export default function AdminReview({ loaderData, actionData }: Route.ComponentProps) {
  const { t } = useTranslation("admin");
  const { pathname } = useLocation();
  const locale = loaderData.locale as Locale;
  const result = actionData as AdminResult | undefined;
  const { queue, refusals, tab } = loaderData;
  const here = (search: string) => `${hrefIn(pathname, "/user/admin/review")}${search}`;
  // A decision about an item no longer listed (decided, deleted) is said at the top.
  const orphan = result && !queue?.rows.some((row) => row.id === result.intent) ? result : undefined;
  const refusalColumns: TableColumnsType<RefusalRow> = [
    { title: t("audit.columns.when"), dataIndex: "createdAt", render: (v: string) => formatDate(locale, v) },
    {
      title: t("generations.columns.owner"),
      dataIndex: "email",
      render: (email: string, row) => <Link to={hrefIn(pathname, `/user/admin/users/${row.userId}`)}>{email}</Link>,
    },
    {
      title: t("generation.source"),
      dataIndex: "source",
      render: (v: string) => t(`review.refusalSources.${v}`, { defaultValue: v }),
    },
    { title: t("user.columns.model"), dataIndex: "modelId", render: (v: string) => <code>{v}</code> },
    {
      title: t("user.columns.prompt"),
      dataIndex: "prompt",
      render: (v: string) => <span className="admin-clip">{v}</span>,
    },
    {
      title: t("review.checks"),
      dataIndex: "findings",
      render: (v: SafetyFinding[]) => (
        <Findings findings={v.filter((f) => f.flagged || f.unavailable)} locale={locale} />
      ),
    },
  ];
  return (
    <div className="page-wide">
      <Typography.Title level={1} className="page-title">
        {t("review.title")}
      </Typography.Title>
      <Typography.Paragraph type="secondary">{t("review.subtitle")}</Typography.Paragraph>
      <nav className="review-tabs" aria-label={t("review.title")}>
        <Link to={here("")} className="review-tab" aria-current={tab === "queue" ? "page" : undefined}>
          {t("review.tabs.queue")}
        </Link>
        <Link to={here("?tab=refused")} className="review-tab" aria-current={tab === "refused" ? "page" : undefined}>
          {t("review.tabs.refused")}
        </Link>
      </nav>
      {orphan && <ResultNotice result={orphan} />}
      {queue && (
        <>
          {queue.rows.length === 0 ? (
            <Typography.Paragraph className="review-empty">{t("review.empty")}</Typography.Paragraph>
          ) : (
            <div className="review-list">
              {queue.rows.map((row) => (
                <ReviewCard key={row.id} row={row} locale={locale} result={result} />
              ))}
            </div>
          )}
          {queue.pageCount > 1 && (
            <nav className="review-pages" aria-label={t("review.pages")}>
              {queue.page > 1 && <Link to={here(`?page=${queue.page - 1}`)}>← {t("review.previous")}</Link>}
              <span>{t("review.pageOf", { page: queue.page, count: queue.pageCount })}</span>
              {queue.page < queue.pageCount && <Link to={here(`?page=${queue.page + 1}`)}>{t("review.next")} →</Link>}
            </nav>
          )}
        </>
      )}
      {refusals && (
        <>
          <Typography.Paragraph type="secondary">{t("review.refusedHint")}</Typography.Paragraph>
          <PagedTable paged={refusals} param="page" columns={refusalColumns} empty={t("review.noRefusals")} />
        </>
      )}
    </div>
  );
}
