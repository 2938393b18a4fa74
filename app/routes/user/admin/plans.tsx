import { Button, Card, Checkbox, Input, Table, Tag, Typography, type TableColumnsType } from "antd";
import { useTranslation } from "react-i18next";
import { data, Form, Link, useLocation, useNavigation } from "react-router";
import type { Route } from "./+types/plans";
import { pageMeta } from "#app/lib/page.server.ts";
import { seoMeta } from "#app/seo.ts";
import { requireAdmin } from "#app/lib/auth.server.ts";
import { formOf } from "#app/lib/request.server.ts";
import { RowAction } from "#app/components/admin/row-action.tsx";
import { ResultNotice, type AdminResult } from "#app/components/admin/user-actions.tsx";
import { listPlans, type PlanView } from "#server/modules/billing/list-plans.ts";
import { addPlan, archivePlan, changePlan } from "#server/modules/billing/edit-plans.ts";
import {
  PLAN_FORM_FIELDS,
  planFormValues,
  planFromForm,
  type PlanFormValues,
} from "#server/modules/billing/plan-form.ts";
import { AppError } from "#server/errors.ts";
import { formatMoney, formatNumber } from "#common/format.ts";
import { FREE_PLAN_ID } from "#common/plans.ts";
import { hrefIn, LOCALES, type Locale } from "#common/locales.ts";

export const meta = ({ loaderData }: Route.MetaArgs) => seoMeta(loaderData?.seo);

export async function loader({ context, request }: Route.LoaderArgs) {
  const { db } = requireAdmin(context, request);
  const { locale, i18n, seo } = pageMeta(context, request, ["admin"], (t) => ({
    title: t("admin:plans.title"),
    noindex: true,
  }));
  const plans = await listPlans({ db, archived: true });
  const editing = plans.find((p) => p.id === new URL(request.url).searchParams.get("edit")) ?? null;
  return { seo, i18n, locale, plans, editing: editing ? planFormValues(editing) : null };
}

export type PlansResult = AdminResult & { typed?: PlanFormValues; editing?: boolean };

export async function action({ context, request }: Route.ActionArgs) {
  const { db, actor } = requireAdmin(context, request);
  const form = await formOf(request);
  const intent = String(form.get("intent") ?? "");
  try {
    if (intent === "archive") {
      const id = String(form.get("plan") ?? "");
      const archived = await archivePlan({ db, id, actor });
      return {
        intent,
        ok: archived ? "plans.archived" : "plans.alreadyArchived",
        values: { id },
      } satisfies PlansResult;
    }
    if (intent === "add" || intent === "change") {
      const typed = Object.fromEntries(PLAN_FORM_FIELDS.map((f) => [f, String(form.get(f) ?? "")]));
      const definition = planFromForm(typed);
      const editing = intent === "change";
      if ("error" in definition) return data<PlansResult>({ intent, ...definition, typed, editing }, { status: 400 });
      if (editing) {
        const changed = await changePlan({ db, id: definition.id, actor, change: () => definition });
        return { intent, ok: changed ? "plans.changed" : "plans.unchanged", values: { id: definition.id } };
      }
      await addPlan({ db, definition: { ...definition }, actor });
      return { intent, ok: "plans.added", values: { id: definition.id } } satisfies PlansResult;
    }
  } catch (error) {
    if (error instanceof AppError) {
      const key =
        error.code === "conflict"
          ? intent === "archive"
            ? "plans.errors.freeArchive"
            : "plans.errors.exists"
          : "plans.errors.notFound";
      const typed =
        intent === "archive"
          ? undefined
          : Object.fromEntries(PLAN_FORM_FIELDS.map((f) => [f, String(form.get(f) ?? "")]));
      return data<PlansResult>(
        { intent, error: key, field: "id", typed, editing: intent === "change" },
        { status: error.status },
      );
    }
    throw error;
  }
  throw data({ messageKey: "error.400" }, { status: 400 });
}

const NEW_PLAN: PlanFormValues = { credits: "", rollover: "0", trialDays: "0", position: "10", api: "on" };

export default function Plans({ loaderData, actionData }: Route.ComponentProps) {
  const { t } = useTranslation("admin");
  const locale = loaderData.locale as Locale;
  const { pathname } = useLocation();
  const result = actionData as PlansResult | undefined;
  const navigation = useNavigation();
  const busy = (intent: string) => navigation.state === "submitting" && navigation.formData?.get("intent") === intent;
  // After a refusal the form shows what was typed; otherwise the plan being edited, or a new one.
  const editing = result?.typed ? Boolean(result.editing) : loaderData.editing !== null;
  const values: PlanFormValues = result?.typed ?? loaderData.editing ?? NEW_PLAN;
  const isFree = values.id === FREE_PLAN_ID;
  const invalid = (field: string) => (result?.field === field && result.error ? ("error" as const) : undefined);
  const prices = (list: Record<string, number>) =>
    Object.entries(list)
      .map(([currency, amount]) => formatMoney(locale, amount, currency))
      .join(" · ") || "—";
  const unlocksOf = (p: PlanView) =>
    [
      p.unlocks.models.length > 0 ? t("plans.unlocks.modelsList", { models: p.unlocks.models.join(", ") }) : null,
      p.unlocks.concurrentJobs === null ? null : t("plans.unlocks.jobs", { count: p.unlocks.concurrentJobs }),
      p.unlocks.privateResults ? t("plans.unlocks.privateResults") : null,
      p.unlocks.noLabel ? t("plans.unlocks.noLabel") : null,
      p.unlocks.priority ? t("plans.unlocks.priority") : null,
      p.unlocks.api ? t("plans.unlocks.api") : null,
    ].filter(Boolean);
  const columns: TableColumnsType<PlanView> = [
    {
      title: t("plans.columns.plan"),
      key: "plan",
      render: (_: unknown, p) => (
        <span className="admin-stack">
          {/* The free plan keeps its own word in each language until it is named there, as on the pricing page. */}
          <strong>{p.names[locale] ?? (p.id === FREE_PLAN_ID && p.name === "Free" ? t("plans.free") : p.name)}</strong>
          <Typography.Text type="secondary">
            <code>{p.id}</code> {p.archivedAt && <Tag>{t("plans.archivedTag")}</Tag>}
          </Typography.Text>
        </span>
      ),
    },
    {
      title: t("plans.columns.prices"),
      key: "prices",
      render: (_: unknown, p) =>
        p.id === FREE_PLAN_ID ? (
          t("plans.free")
        ) : (
          <span className="admin-stack">
            <span>{t("plans.perMonth", { prices: prices(p.monthly) })}</span>
            <span>{t("plans.perYear", { prices: prices(p.yearly) })}</span>
          </span>
        ),
    },
    {
      title: t("plans.columns.credits"),
      key: "credits",
      align: "right",
      render: (_: unknown, p) => (
        <span className="admin-stack">
          <span>{formatNumber(locale, p.credits)}</span>
          {p.rollover > 0 && (
            <Typography.Text type="secondary">
              {t("plans.rolloverUpTo", { credits: formatNumber(locale, p.rollover) })}
            </Typography.Text>
          )}
        </span>
      ),
    },
    {
      title: t("plans.columns.unlocks"),
      key: "unlocks",
      render: (_: unknown, p) => unlocksOf(p).join(" · ") || "—",
    },
    {
      title: t("plans.columns.actions"),
      key: "actions",
      render: (_: unknown, p) => (
        <span className="admin-row-actions">
          <Link to={`${hrefIn(pathname, "/user/admin/plans")}?edit=${encodeURIComponent(p.id)}#plan-form`}>
            {t("plans.edit")}
          </Link>
          {p.id !== FREE_PLAN_ID && !p.archivedAt && (
            <RowAction field="plan" value={p.id} intent="archive" danger>
              {t("plans.archive")}
            </RowAction>
          )}
        </span>
      ),
    },
  ];
  const text = (name: string, props: { required?: boolean; placeholder?: string; grow?: boolean } = {}) => (
    <label className={`admin-filter${props.grow ? " admin-filter-grow" : ""}`}>
      <span>{t(`plans.fields.${name}`)}</span>
      <Input
        name={name}
        defaultValue={values[name] ?? ""}
        required={props.required}
        placeholder={props.placeholder}
        status={invalid(name)}
      />
    </label>
  );
  return (
    <div className="page-wide">
      <Typography.Title level={1} className="page-title">
        {t("plans.title")}
      </Typography.Title>
      <Typography.Paragraph type="secondary">{t("plans.subtitle")}</Typography.Paragraph>
      <ResultNotice result={result} />
      <Table<PlanView>
        rowKey="id"
        size="middle"
        scroll={{ x: "max-content" }}
        dataSource={loaderData.plans}
        columns={columns}
        pagination={false}
        className="admin-plans-table"
      />
      <Card
        id="plan-form"
        className="admin-plan-form"
        title={editing ? t("plans.editTitle", { id: values.id }) : t("plans.addTitle")}
      >
        {/* A new key after each answer: the form shows what the server has, or what was typed before a refusal. */}
        <Form
          method="post"
          className="admin-codes-form"
          key={`${result?.ok ?? ""}:${result?.values?.id ?? ""}:${JSON.stringify(values)}`}
        >
          {editing ? (
            <input type="hidden" name="id" value={values.id} />
          ) : (
            text("id", { required: true, placeholder: "pro" })
          )}
          {text("name", { required: true, grow: true })}
          {!isFree && text("monthly", { placeholder: "1500:usd 1400:eur", grow: true })}
          {!isFree && text("yearly", { placeholder: "15000:usd", grow: true })}
          {text("credits", { required: true })}
          {text("rollover")}
          {!isFree && text("trialDays")}
          {text("position")}
          {text("models", { placeholder: "premium, demo-video", grow: true })}
          {text("concurrentJobs")}
          <div className="admin-plan-checks">
            {(["privateResults", "noLabel", "priority", "api"] as const).map((name) => (
              <Checkbox key={name} name={name} defaultChecked={values[name] === "on"}>
                {t(`plans.fields.${name}`)}
              </Checkbox>
            ))}
          </div>
          <details className="admin-plan-languages" open={Boolean(result?.field?.includes("."))}>
            <summary>{t("plans.languages")}</summary>
            {LOCALES.map((l) => (
              <div key={l} className="admin-plan-language">
                <label className="admin-filter">
                  <span>{t("plans.fields.nameIn", { language: l.toUpperCase() })}</span>
                  <Input name={`names.${l}`} defaultValue={values[`names.${l}`] ?? ""} lang={l} />
                </label>
                <label className="admin-filter admin-filter-grow">
                  <span>{t("plans.fields.descriptionIn", { language: l.toUpperCase() })}</span>
                  <Input
                    name={`description.${l}`}
                    defaultValue={values[`description.${l}`] ?? ""}
                    lang={l}
                    status={invalid(`description.${l}`)}
                  />
                </label>
              </div>
            ))}
          </details>
          <div className="admin-plan-submit">
            <Button
              htmlType="submit"
              name="intent"
              value={editing ? "change" : "add"}
              type="primary"
              loading={busy("add") || busy("change")}
            >
              {editing ? t("plans.save") : t("plans.add")}
            </Button>
            {editing && <Link to={`${hrefIn(pathname, "/user/admin/plans")}#plan-form`}>{t("plans.cancelEdit")}</Link>}
          </div>
        </Form>
        <Typography.Paragraph type="secondary" className="admin-hint">
          {t("plans.hint")}
        </Typography.Paragraph>
      </Card>
    </div>
  );
}
