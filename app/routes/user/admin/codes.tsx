import { Alert, Button, Card, Input, Tag, Typography, type TableColumnsType } from "antd";
import { MAX_EXPIRY_DAYS } from "#common/plans.ts";
import { DownloadOutlined } from "#app/components/antd-icons.ts";
import { useTranslation } from "react-i18next";
import { data, Form, useNavigation } from "react-router";
import { z } from "zod";
import type { Route } from "./+types/codes";
import { pageMeta } from "#app/lib/page.server.ts";
import { seoMeta } from "#app/seo.ts";
import { requireAdmin } from "#app/lib/auth.server.ts";
import { formOf } from "#app/lib/request.server.ts";
import { pageOf } from "#app/lib/paging.ts";
import { PagedTable } from "#app/components/billing/paged-table.tsx";
import { DayField } from "#app/components/admin/day-field.tsx";
import { RowAction } from "#app/components/admin/row-action.tsx";
import { ResultNotice, type AdminResult } from "#app/components/admin/user-actions.tsx";
import { createCodes } from "#server/modules/credits/create-codes.ts";
import { disableCodeBatch } from "#server/modules/credits/disable-code-batch.ts";
import { listCodeBatches, type CodeBatchView } from "#server/modules/credits/list-code-batches.ts";
import { MAX_CODES_PER_BATCH } from "#server/modules/credits/redemption-codes.ts";
import { MAX_CREDIT_AMOUNT } from "#server/modules/credits/ledger.ts";
import { formatDate, formatNumber } from "#common/format.ts";
import { isUuid } from "#common/ids.ts";
import type { Locale } from "#common/locales.ts";

const PAGE_SIZE = 20;
const MAX_USES = 1_000_000;

export const meta = ({ loaderData }: Route.MetaArgs) => seoMeta(loaderData?.seo);

export async function loader({ context, request }: Route.LoaderArgs) {
  const { db } = requireAdmin(context, request);
  const page = pageOf(new URL(request.url).searchParams.get("page"));
  const { locale, i18n, seo } = pageMeta(context, request, ["admin"], (t) => ({
    title: t("admin:codes.title"),
    noindex: true,
  }));
  const batches = await listCodeBatches({ db, page, pageSize: PAGE_SIZE });
  return {
    seo,
    i18n,
    locale,
    limits: { credits: MAX_CREDIT_AMOUNT, count: MAX_CODES_PER_BATCH, uses: MAX_USES },
    batches: { ...batches, page, pageSize: PAGE_SIZE },
  };
}

const whole = (max: number) => z.coerce.number().int().min(1).max(max);
const batchForm = z.object({
  name: z.string().trim().min(1).max(60),
  credits: whole(MAX_CREDIT_AMOUNT),
  count: whole(MAX_CODES_PER_BATCH),
  uses: whole(MAX_USES),
  // The last day the codes work, through its end (UTC); none: they do not expire.
  expires: z.union([
    z.literal(""),
    z
      .string()
      .regex(/^\d{4}-\d\d-\d\d$/)
      .refine((day) => Date.parse(`${day}T23:59:59.999Z`) > Date.now()),
  ]),
  // Days a redeemed code's credits last; empty or 0: they never expire.
  creditsLast: z.union([z.literal("").transform(() => 0), z.coerce.number().int().min(0).max(MAX_EXPIRY_DAYS)]),
});

/** The batch's codes as a CSV file's text: one code per line, with what it is worth. */
function csvOf(codes: string[], batch: { name: string; credits: number; uses: number; expires: string }) {
  const quote = (value: string) => `"${value.replace(/"/g, '""')}"`;
  const lines = codes.map((code) => [code, quote(batch.name), batch.credits, batch.uses, batch.expires].join(","));
  return ["code,batch,credits,uses,expires", ...lines].join("\r\n") + "\r\n";
}

export type CodesResult = AdminResult & { codes?: string[]; csv?: string; file?: string };

export async function action({ context, request }: Route.ActionArgs) {
  const { db, actor } = requireAdmin(context, request);
  const form = await formOf(request);
  const intent = form.get("intent");
  if (intent === "create") {
    const parsed = batchForm.safeParse(
      Object.fromEntries(
        ["name", "credits", "count", "uses", "expires", "creditsLast"].map((k) => [k, form.get(k) ?? ""]),
      ),
    );
    if (!parsed.success) {
      const field = String(parsed.error.issues[0]?.path[0] ?? "name");
      return data<CodesResult>({ intent, error: `codes.errors.${field}`, field }, { status: 400 });
    }
    const { name, credits, count, uses, expires, creditsLast } = parsed.data;
    const { codes } = await createCodes({
      db,
      credits,
      count,
      maxUses: uses,
      batch: name,
      expiresAt: expires ? new Date(`${expires}T23:59:59.999Z`) : null,
      creditsExpireDays: creditsLast,
      actor,
    });
    return {
      intent,
      ok: "codes.created",
      values: { count: codes.length, name },
      codes,
      csv: csvOf(codes, { name, credits, uses, expires }),
      file: `codes-${name.replace(/[^\p{L}\p{N}_-]+/gu, "-").slice(0, 40) || "batch"}.csv`,
    } satisfies CodesResult;
  }
  if (intent === "disable") {
    const batchId = String(form.get("batch") ?? "");
    const done = isUuid(batchId) && (await disableCodeBatch({ db, batchId, actor }));
    return done
      ? ({ intent, ok: "codes.disabled" } satisfies CodesResult)
      : data<CodesResult>({ intent, error: "codes.notFound" }, { status: 404 });
  }
  throw data({ messageKey: "error.400" }, { status: 400 });
}

const STATUS_COLORS = { active: "green", disabled: "red", expired: undefined, usedUp: undefined } as const;

export default function Codes({ loaderData, actionData }: Route.ComponentProps) {
  const { t } = useTranslation("admin");
  const locale = loaderData.locale as Locale;
  const { batches, limits } = loaderData;
  const result = actionData as CodesResult | undefined;
  const navigation = useNavigation();
  const busy = (intent: string) => navigation.state === "submitting" && navigation.formData?.get("intent") === intent;
  const invalid = (field: string) => (result?.field === field ? ("error" as const) : undefined);
  const columns: TableColumnsType<CodeBatchView> = [
    { title: t("codes.columns.name"), dataIndex: "name", render: (v: string) => <strong>{v}</strong> },
    {
      title: t("codes.columns.credits"),
      dataIndex: "credits",
      align: "right",
      render: (v: number) => formatNumber(locale, v),
    },
    {
      title: t("codes.columns.used"),
      key: "used",
      align: "right",
      render: (_: unknown, row) =>
        t("codes.usedOf", {
          used: formatNumber(locale, row.uses),
          total: formatNumber(locale, row.codeCount * row.maxUses),
        }),
    },
    {
      title: t("codes.columns.codes"),
      key: "codes",
      align: "right",
      render: (_: unknown, row) =>
        t("codes.codesTimesUses", {
          codes: formatNumber(locale, row.codeCount),
          uses: formatNumber(locale, row.maxUses),
        }),
    },
    {
      title: t("codes.columns.expires"),
      dataIndex: "expiresAt",
      render: (v: string | null) => (v ? formatDate(locale, v) : t("codes.never")),
    },
    {
      title: t("codes.columns.status"),
      key: "status",
      render: (_: unknown, row) => <Tag color={STATUS_COLORS[row.status]}>{t(`codes.status.${row.status}`)}</Tag>,
    },
    {
      title: t("codes.columns.created"),
      key: "created",
      render: (_: unknown, row) => (
        <span className="admin-stack">
          <span>{formatDate(locale, row.createdAt)}</span>
          {row.createdBy && (
            <Typography.Text type="secondary">
              {row.createdBy === "cli" ? t("audit.commandLine") : row.createdBy}
            </Typography.Text>
          )}
        </span>
      ),
    },
    {
      title: t("codes.columns.actions"),
      key: "actions",
      render: (_: unknown, row) =>
        row.disabledAt ? null : (
          <RowAction field="batch" value={row.id} intent="disable" danger>
            {t("codes.disable")}
          </RowAction>
        ),
    },
  ];
  return (
    <div className="page-wide">
      <Typography.Title level={1} className="page-title">
        {t("codes.title")}
      </Typography.Title>
      <Typography.Paragraph type="secondary">{t("codes.subtitle")}</Typography.Paragraph>
      <ResultNotice result={result} />
      {result?.codes && result.csv && (
        <Card title={t("codes.newCodes", { name: result.values?.name ?? "" })} className="admin-new-codes">
          <Alert type="warning" showIcon title={t("codes.onlyOnce")} />
          <div className="admin-new-codes-actions">
            <Button
              icon={<DownloadOutlined />}
              href={`data:text/csv;charset=utf-8,${encodeURIComponent(result.csv)}`}
              download={result.file}
            >
              {t("codes.download")}
            </Button>
          </div>
          <Input.TextArea
            readOnly
            value={result.codes.join("\n")}
            rows={Math.min(result.codes.length, 8)}
            aria-label={t("codes.codesLabel")}
            className="admin-code-list"
          />
        </Card>
      )}
      <Card title={t("codes.create")} className="admin-create-codes">
        <Form method="post" className="admin-codes-form">
          <label className="admin-filter admin-filter-grow">
            <span>{t("codes.name")}</span>
            <Input
              name="name"
              required
              maxLength={60}
              placeholder={t("codes.namePlaceholder")}
              status={invalid("name")}
            />
          </label>
          <label className="admin-filter">
            <span>{t("codes.credits")}</span>
            <Input
              name="credits"
              type="number"
              min={1}
              max={limits.credits}
              step={1}
              required
              status={invalid("credits")}
            />
          </label>
          <label className="admin-filter">
            <span>{t("codes.count")}</span>
            <Input
              name="count"
              type="number"
              min={1}
              max={limits.count}
              step={1}
              defaultValue={1}
              required
              status={invalid("count")}
            />
          </label>
          <label className="admin-filter">
            <span>{t("codes.uses")}</span>
            <Input
              name="uses"
              type="number"
              min={1}
              max={limits.uses}
              step={1}
              defaultValue={1}
              required
              status={invalid("uses")}
            />
          </label>
          <label className="admin-filter">
            <span>{t("codes.creditsLast")}</span>
            <Input
              name="creditsLast"
              type="number"
              min={0}
              max={MAX_EXPIRY_DAYS}
              step={1}
              placeholder="0"
              status={invalid("creditsLast")}
            />
          </label>
          <div className="admin-filter admin-filter-day">
            <label htmlFor="codes-expires">{t("codes.expires")}</label>
            <DayField id="codes-expires" name="expires" locale={locale} future status={invalid("expires")} />
          </div>
          <Button htmlType="submit" name="intent" value="create" type="primary" loading={busy("create")}>
            {t("codes.submit")}
          </Button>
        </Form>
        <Typography.Paragraph type="secondary" className="admin-hint">
          {t("codes.hint")}
        </Typography.Paragraph>
      </Card>
      <Typography.Title level={2} className="section-title">
        {t("codes.batches")}
      </Typography.Title>
      <PagedTable paged={batches} param="page" columns={columns} empty={t("codes.empty")} />
    </div>
  );
}
