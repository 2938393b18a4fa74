import { toolsOfKind } from "#common/tools.ts";
import { Button, Card, Checkbox, Input, Tag, Typography, type TableColumnsType } from "antd";
import { useTranslation } from "react-i18next";
import { useEffect } from "react";
import { data, Form, Link, useLocation, useNavigation, useRevalidator } from "react-router";
import { z } from "zod";
import type { Route } from "./+types/models";
import { pageMeta } from "#app/lib/page.server.ts";
import { seoMeta } from "#app/seo.ts";
import { requireAdmin } from "#app/lib/auth.server.ts";
import { formOf } from "#app/lib/request.server.ts";
import { allRows, PagedTable } from "#app/components/billing/paged-table.tsx";
import { ResultNotice, type AdminResult } from "#app/components/admin/user-actions.tsx";
import { RowAction } from "#app/components/admin/row-action.tsx";
import { PeriodFilter } from "#app/components/admin/filter-form.tsx";
import { HealthLine } from "#app/components/admin/health-line.tsx";
import type { ResolvedBinding } from "#config/models.ts";
import { modelStats } from "#server/modules/generation/model-stats.ts";
import { latestModelChecks, startModelCheck } from "#server/modules/generation/model-checks.ts";
import { addModel, changeModel, removeModel } from "#server/modules/catalog/edit-models.ts";
import { builtInDefinitions } from "#server/modules/catalog/catalog.ts";
import { idFromProviderModel, newModelDefinition } from "#server/admin/catalog-commands.ts";
import { offerRefusal, refusalResult } from "#app/lib/catalog-admin.server.ts";
import { duplicateModel, moveModel } from "#server/modules/catalog/arrange-models.ts";
import { providers } from "#server/providers/registry.ts";
import type { GenerationTool } from "#common/generation.ts";
import { periodOf, periodStart } from "#common/admin.ts";
import { currencyDigits, formatMoney, formatNumber } from "#common/format.ts";
import { hrefIn, type Locale } from "#common/locales.ts";

export const meta = ({ loaderData }: Route.MetaArgs) => seoMeta(loaderData?.seo);

export async function loader({ context, request }: Route.LoaderArgs) {
  const { db, runtime } = requireAdmin(context, request);
  const period = periodOf(new URL(request.url).searchParams.get("period"));
  const { locale, i18n, seo } = pageMeta(context, request, ["admin"], (t) => ({
    title: t("admin:models.title"),
    noindex: true,
  }));
  await Promise.all([runtime.settings.refresh(), runtime.models.refresh()]);
  const settings = runtime.settings.current();
  const stats = new Map((await modelStats({ db, since: periodStart(period, new Date()) })).map((s) => [s.modelId, s]));
  const checks = await latestModelChecks({ db, models: runtime.models });
  // What a credit is worth at least: the lowest price per credit of the packs in the first pack's currency.
  const currency = settings.packs[0]!.currency;
  const creditValue = Math.min(
    ...settings.packs.filter((p) => p.currency === currency).map((p) => p.amount / p.credits),
  );
  const digits = currencyDigits(currency);
  const all = runtime.models.entries();
  const order = (id: string) => ({
    first: all[0]?.id === id,
    last: all[all.length - 1]?.id === id,
  });
  const models = all.map((e) => {
    const m = e.definition;
    if (m.kind === "chat")
      return {
        id: e.id,
        name: m.name,
        kind: m.kind,
        source: e.source,
        changed: e.changed.length > 0,
        ...order(e.id),
        unit: "million" as const,
        credits: m.price.inputPerMillion,
        outputCredits: m.price.outputPerMillion,
        priced: false,
        providerCost: null,
        state: e.state,
        providers: e.resolved.map((b) => ({
          provider: b.provider,
          connection: (b as { connection?: string }).connection ?? null,
          configured: true,
          check: null,
        })),
        jobs: null,
        successRate: null,
        p50: null,
        p95: null,
        creditsEarned: 0,
        earned: null,
        cost: null,
        margin: null,
      };
    const resolved = e.resolved as ResolvedBinding[];
    // Each connection the model runs on now (with its latest test), then the providers it has no connection of.
    const configured = [
      ...resolved.map((b, index) => ({
        provider: b.provider,
        connection: b.connection,
        configured: true,
        check: checks.find((c) => c.modelId === e.id && c.binding === index && c.provider === b.provider) ?? null,
      })),
      ...m.bindings
        .filter((b) => !resolved.some((r) => r.provider === b.provider))
        .map((b) => ({ provider: b.provider, connection: b.connection ?? null, configured: false, check: null })),
    ];
    const state = e.state;
    const override = { credits: e.changed.includes("price") ? m.price.credits : undefined, cost: m.cost };
    const s = stats.get(e.id);
    const units = !s ? 0 : m.price.unit === "image" ? s.images : m.price.unit === "video" ? s.videos : s.videoSeconds;
    const earned = s ? Math.round(s.credits * creditValue) : 0;
    const cost = override?.cost === undefined ? null : Math.round(units * override.cost * 10 ** digits);
    return {
      id: e.id,
      name: m.name,
      kind: m.kind,
      source: e.source,
      changed: e.changed.length > 0,
      ...order(e.id),
      unit: m.price.unit,
      credits: m.price.credits,
      outputCredits: null,
      priced: override.credits !== undefined,
      providerCost: override.cost ?? null,
      state,
      providers: configured,
      jobs: s?.jobs ?? 0,
      successRate: s && s.succeeded + s.failed > 0 ? s.succeeded / (s.succeeded + s.failed) : null,
      p50: s?.p50Seconds ?? null,
      p95: s?.p95Seconds ?? null,
      creditsEarned: s?.credits ?? 0,
      earned,
      cost,
      margin: cost === null ? null : earned - cost,
    };
  });
  const targets = [
    ...providers
      .filter((p) => !("local" in p && p.local))
      .map((p) => ({ value: `provider:${p.id}`, provider: p.id, connection: null as string | null })),
    ...runtime.models
      .connections()
      .filter((c) => c.source === "custom")
      .map((c) => ({ value: `connection:${c.id}`, provider: c.provider, connection: c.name })),
  ];
  return { seo, i18n, locale, period, currency, models, targets, now: new Date().toISOString() };
}

const decimal = z
  .string()
  .trim()
  .regex(/^\d{1,6}([.,]\d{1,6})?$/)
  .transform((v) => Number(v.replace(",", ".")));

export async function action({ context, request }: Route.ActionArgs) {
  const { db, runtime, actor } = requireAdmin(context, request);
  const form = await formOf(request);
  const intent = String(form.get("intent") ?? "");
  if (intent === "add") return addFromForm({ db, runtime, actor, form });
  const modelId = String(form.get("model") ?? "");
  const entry = runtime.models.entry(modelId);
  if (!entry) throw data({ messageKey: "error.404" }, { status: 404 });
  const name = entry.definition.name;
  const chat = entry.definition.kind === "chat";
  const refuse = (error: string, field: string) => data<AdminResult>({ intent, error, field }, { status: 400 });
  const save = async (change: { enabled?: boolean; credits?: number; cost?: number }, ok: string) => {
    const builtIn = builtInDefinitions(runtime.env).get(modelId);
    const changed = await changeModel({
      db,
      env: runtime.env,
      id: modelId,
      actor,
      change: (current) => {
        if (current.kind === "chat")
          return change.enabled === undefined ? current : { ...current, enabled: change.enabled };
        const next = { ...current };
        if (change.enabled !== undefined) next.enabled = change.enabled;
        if ("credits" in change) {
          // No price given: the built-in model's price again (an added model keeps its own).
          const credits =
            change.credits ?? (builtIn?.kind === current.kind ? builtIn.price.credits : current.price.credits);
          next.price = { ...current.price, credits };
        }
        if ("cost" in change) {
          if (change.cost === undefined) delete next.cost;
          else next.cost = change.cost;
        }
        return next;
      },
    });
    await runtime.models.refresh();
    return { intent, ok: changed ? ok : "settings.unchanged", values: { model: modelId } } satisfies AdminResult;
  };
  try {
    switch (intent) {
      case "duplicate": {
        const copy = await duplicateModel({ db, env: runtime.env, models: runtime.models, actor, id: modelId });
        await runtime.models.refresh();
        return { intent, ok: "models.duplicated", values: { model: name, copy } } satisfies AdminResult;
      }
      case "up":
      case "down": {
        await moveModel({
          db,
          env: runtime.env,
          models: runtime.models,
          actor,
          id: modelId,
          by: intent === "up" ? -1 : 1,
        });
        await runtime.models.refresh();
        return { intent, ok: "models.moved", values: { model: name } } satisfies AdminResult;
      }
      case "remove": {
        await removeModel({ db, env: runtime.env, id: modelId, actor });
        await runtime.models.refresh();
        return {
          intent,
          ok: entry.source === "builtin" ? "models.resetDone" : "models.removed",
          values: { model: name },
        } satisfies AdminResult;
      }
    }
  } catch (error) {
    return refusalResult(intent, error, { model: name });
  }
  if (chat && intent !== "enable" && intent !== "disable") throw data({ messageKey: "error.400" }, { status: 400 });
  switch (intent) {
    case "check": {
      const outcome = await startModelCheck({ db, boss: runtime.boss, models: runtime.models, modelId, actor });
      if ("refused" in outcome)
        return data<AdminResult>(
          {
            intent,
            error: outcome.refused === "running" ? "models.checkRunning" : "models.checkNoProvider",
            values: { model: name },
          },
          { status: 409 },
        );
      return { intent, ok: "models.checkStarted", values: { model: name } } satisfies AdminResult;
    }
    case "enable":
    case "disable": {
      // Switching a model on asks its servers first (a workflow's node types and model files on every server).
      if (intent === "enable" && !entry.definition.enabled) {
        const refused = await offerRefusal(
          { db, connections: runtime.models },
          { id: entry.id, definition: entry.definition, intent, values: { model: name } },
        );
        if (refused) return refused;
      }
      return save({ enabled: intent === "enable" }, intent === "enable" ? "models.enabled" : "models.disabled");
    }
    case "price": {
      const creditsText = String(form.get("credits") ?? "").trim();
      const costText = String(form.get("cost") ?? "").trim();
      const credits = creditsText === "" ? undefined : Number(creditsText);
      if (credits !== undefined && (!Number.isSafeInteger(credits) || credits < 0 || credits > 1_000_000))
        return refuse("models.errors.credits", `credits.${modelId}`);
      const cost = costText === "" ? undefined : decimal.safeParse(costText);
      if (cost && !cost.success) return refuse("models.errors.cost", `cost.${modelId}`);
      return save({ credits, cost: cost?.data }, "models.saved");
    }
    default:
      throw data({ messageKey: "error.400" }, { status: 400 });
  }
}

const whole = z.coerce.number().int().min(0).max(100_000_000);

/** The console's "add a model": the common parameters, as `models add` takes them. */
async function addFromForm({
  db,
  runtime,
  actor,
  form,
}: {
  db: Parameters<typeof addModel>[0]["db"];
  runtime: ReturnType<typeof requireAdmin>["runtime"];
  actor: Parameters<typeof addModel>[0]["actor"];
  form: FormData;
}) {
  const intent = "add";
  const text = (name: string) => String(form.get(name) ?? "").trim();
  const refuse = (error: string, field: string) => data<AdminResult>({ intent, error, field }, { status: 400 });
  const kind = text("kind");
  if (kind !== "image" && kind !== "video" && kind !== "chat") return refuse("models.errors.kind", "kind");
  const [how, target] = text("target").split(":");
  const connection = how === "connection" ? runtime.models.connections().find((c) => c.id === target) : undefined;
  const provider = how === "provider" ? target : connection?.provider;
  if (!provider || !providers.some((p) => p.id === provider) || (how === "connection" && !connection))
    return refuse("models.errors.target", "target");
  const model = text("providerModel");
  if (!model || model.length > 300) return refuse("models.errors.providerModel", "providerModel");
  const id = text("id") || idFromProviderModel(model);
  const credits = whole.safeParse(text("credits") || "x");
  if (!credits.success) return refuse("models.errors.credits", "credits");
  const output = whole.safeParse(text("outputCredits") || String(credits.data));
  if (!output.success) return refuse("models.errors.credits", "outputCredits");
  const unit = text("unit");
  const units = ["image", "video", "videoSecond"] as const;
  const tools = form.getAll("tools").map(String);
  if (tools.some((t) => !(toolsOfKind("image") as string[]).includes(t))) return refuse("models.errors.tools", "tools");
  try {
    const added = await addModel({
      db,
      env: runtime.env,
      id,
      actor,
      definition: newModelDefinition({
        kind,
        provider,
        model,
        name: text("name") || undefined,
        credits: credits.data,
        outputCredits: output.data,
        unit: (units as readonly string[]).includes(unit) ? (unit as (typeof units)[number]) : undefined,
        tools: kind === "image" && tools.length > 0 ? (tools as GenerationTool[]) : undefined,
        connection: connection?.id,
        enabled: form.get("enabled") !== null,
      }),
    });
    await runtime.models.refresh();
    return { intent, ok: "models.added", values: { model: added.name, id: added.id } } satisfies AdminResult;
  } catch (error) {
    return refusalResult(intent, error, { model: id });
  }
}

type ModelRow = Route.ComponentProps["loaderData"]["models"][number];

const STATE_COLORS = { on: "green", off: "red", configOff: "default", noProvider: "default" } as const;

export default function AdminModels({ loaderData, actionData }: Route.ComponentProps) {
  const { t } = useTranslation("admin");
  const locale = loaderData.locale as Locale;
  const { models, period, currency, targets } = loaderData;
  const { pathname } = useLocation();
  const now = new Date(loaderData.now);
  // While a test runs, the page asks for its outcome every 2 seconds (before the scripts, a reload shows it).
  const revalidator = useRevalidator();
  const testing = models.some((m) => m.providers.some((p) => p.check?.status === "running"));
  useEffect(() => {
    if (!testing) return;
    const timer = setInterval(() => {
      if (revalidator.state === "idle") void revalidator.revalidate();
    }, 2000);
    return () => clearInterval(timer);
  }, [testing, revalidator]);
  const result = actionData as AdminResult | undefined;
  const navigation = useNavigation();
  const busy = (intent: string, model: string) =>
    navigation.state === "submitting" &&
    navigation.formData?.get("intent") === intent &&
    navigation.formData.get("model") === model;
  const money = (minor: number | null) => (minor === null ? "—" : formatMoney(locale, minor, currency));
  const columns: TableColumnsType<ModelRow> = [
    {
      title: t("models.columns.model"),
      dataIndex: "name",
      render: (name: string, row) => (
        <span className="admin-stack" data-model={row.id}>
          <Link to={hrefIn(pathname, `/user/admin/models/${row.id}`)}>
            <strong>{name}</strong>
          </Link>
          <Typography.Text type="secondary" code>
            {row.id}
          </Typography.Text>
          <span>
            <Tag>{t(`models.kinds.${row.kind}`)}</Tag>
            {row.source === "custom" && <Tag color="blue">{t("models.customTag")}</Tag>}
          </span>
        </span>
      ),
    },
    {
      title: t("models.columns.actions"),
      key: "actions",
      render: (_: unknown, row) => (
        <span className="admin-row-actions admin-row-actions-stack">
          {row.state === "on" || row.state === "noProvider" ? (
            <RowAction field="model" value={row.id} intent="disable" danger>
              {t("models.disable")}
            </RowAction>
          ) : row.state === "off" ? (
            <RowAction field="model" value={row.id} intent="enable">
              {t("models.enable")}
            </RowAction>
          ) : null}
          <Button size="small" href={hrefIn(pathname, `/user/admin/models/${row.id}`)}>
            {t("models.edit")}
          </Button>
          <RowAction field="model" value={row.id} intent="duplicate">
            {t("models.duplicate")}
          </RowAction>
          <span className="admin-row-arrows">
            <RowAction field="model" value={row.id} intent="up" disabled={row.first} label={t("models.up")}>
              ↑
            </RowAction>
            <RowAction field="model" value={row.id} intent="down" disabled={row.last} label={t("models.down")}>
              ↓
            </RowAction>
          </span>
          {(row.source === "custom" || row.changed) && (
            <Button size="small" danger href={hrefIn(pathname, `/user/admin/models/${row.id}?remove=1`)}>
              {row.source === "custom" ? t("models.remove") : t("models.resetAction")}
            </Button>
          )}
        </span>
      ),
    },
    {
      title: t("models.columns.state"),
      dataIndex: "state",
      // The model's state, then each provider: not configured, or its latest health test; and the test's button.
      render: (state: ModelRow["state"], row) => (
        <span className="admin-stack" data-health={row.id}>
          <span>
            <Tag color={STATE_COLORS[state]} data-state={state}>
              {t(`models.states.${state}`)}
            </Tag>
          </span>
          {row.providers.map((p) =>
            p.configured ? (
              <HealthLine key={p.provider} provider={p.provider} check={p.check} locale={locale} now={now} />
            ) : (
              <span key={p.provider}>
                <Tag>{t("models.notConfigured", { provider: p.provider })}</Tag>
              </span>
            ),
          )}
          {row.providers.some((p) => p.configured) && (
            <RowAction
              field="model"
              value={row.id}
              intent="check"
              disabled={row.providers.some((p) => p.check?.status === "running")}
            >
              {t("models.check")}
            </RowAction>
          )}
        </span>
      ),
    },
    {
      title: t("models.columns.jobs"),
      dataIndex: "jobs",
      align: "right",
      render: (v: number | null) => (v === null ? "—" : formatNumber(locale, v)),
    },
    {
      title: t("models.columns.outcome"),
      key: "outcome",
      align: "right",
      render: (_: unknown, row) => (
        <span className="admin-stack">
          <span>
            {row.successRate === null
              ? "—"
              : t("models.successRate", {
                  rate: formatNumber(locale, row.successRate, { style: "percent", maximumFractionDigits: 1 }),
                })}
          </span>
          {row.p50 !== null && (
            <Typography.Text type="secondary">
              {t("models.p50p95", { p50: formatNumber(locale, row.p50), p95: formatNumber(locale, row.p95 ?? 0) })}
            </Typography.Text>
          )}
        </span>
      ),
    },
    {
      title: t("models.columns.money"),
      key: "money",
      align: "right",
      render: (_: unknown, row) =>
        row.kind === "chat" ? (
          "—"
        ) : (
          <dl className="admin-money">
            <div>
              <dt>{t("models.earned")}</dt>
              <dd>
                {money(row.earned)}{" "}
                <Typography.Text type="secondary">
                  (
                  {t("models.credits", {
                    count: row.creditsEarned,
                    formatted: formatNumber(locale, row.creditsEarned),
                  })}
                  )
                </Typography.Text>
              </dd>
            </div>
            <div>
              <dt>{t("models.cost")}</dt>
              <dd>{money(row.cost)}</dd>
            </div>
            <div>
              <dt>{t("models.margin")}</dt>
              <dd className={row.margin === null ? undefined : row.margin < 0 ? "credit-minus" : "credit-plus"}>
                {money(row.margin)}
              </dd>
            </div>
          </dl>
        ),
    },
    {
      title: t("models.columns.price"),
      key: "price",
      render: (_: unknown, row) =>
        row.kind === "chat" ? (
          <span className="admin-model-price">
            <span>{t("models.chatPrice", { input: row.credits, output: row.outputCredits })}</span>
          </span>
        ) : (
          <Form method="post" className="admin-model-price">
            <input type="hidden" name="model" value={row.id} />
            <label>
              <span>{t(`models.units.${row.unit}`)}</span>
              <Input
                name="credits"
                type="number"
                min={0}
                step={1}
                size="small"
                defaultValue={row.credits}
                status={result?.field === `credits.${row.id}` ? "error" : undefined}
              />
            </label>
            <label>
              <span>{t("models.costPerUnit", { currency: currency.toUpperCase() })}</span>
              <Input
                name="cost"
                inputMode="decimal"
                size="small"
                defaultValue={row.providerCost ?? undefined}
                status={result?.field === `cost.${row.id}` ? "error" : undefined}
              />
            </label>
            <Button htmlType="submit" name="intent" value="price" size="small" loading={busy("price", row.id)}>
              {t("settings.save")}
            </Button>
          </Form>
        ),
    },
  ];
  return (
    <div className="page-wide admin-wide">
      <Typography.Title level={1} className="page-title">
        {t("models.title")}
      </Typography.Title>
      <Typography.Paragraph type="secondary">{t("models.subtitle")}</Typography.Paragraph>
      <ResultNotice result={result} />
      <p>
        <Button type="primary" href={hrefIn(pathname, "/user/admin/models/add")} data-add-by-id>
          {t("modelAdd.title")}
        </Button>
      </p>
      <AddModel targets={targets} result={result} />
      <PeriodFilter period={period} label={t("models.periodLabel")} />
      <PagedTable paged={allRows(models)} param="page" columns={columns} empty={t("models.empty")} />
      <Typography.Paragraph type="secondary" className="admin-hint">
        {t("models.marginHint")}
      </Typography.Paragraph>
      <Typography.Paragraph type="secondary" className="admin-hint">
        {t("models.checkHint")}
      </Typography.Paragraph>
    </div>
  );
}

/** Adds a model with the common parameters on a connection (or any connection of a provider), as `models add`. */
function AddModel({
  targets,
  result,
}: {
  targets: Route.ComponentProps["loaderData"]["targets"];
  result: AdminResult | undefined;
}) {
  const { t } = useTranslation("admin");
  const navigation = useNavigation();
  const busy = navigation.state === "submitting" && navigation.formData?.get("intent") === "add";
  const invalid = (field: string) =>
    result?.intent === "add" && result.field?.split(".")[0] === field ? ("error" as const) : undefined;
  return (
    <Card title={t("models.add.title")} className="admin-create-codes">
      <Form method="post" className="admin-codes-form" data-add-model>
        <label className="admin-filter">
          <span>{t("models.add.kind")}</span>
          <select name="kind" className="admin-select" defaultValue="image">
            {(["image", "video", "chat"] as const).map((k) => (
              <option key={k} value={k}>
                {t(`models.kinds.${k}`)}
              </option>
            ))}
          </select>
        </label>
        <label className="admin-filter admin-filter-grow">
          <span>{t("models.add.target")}</span>
          <select name="target" className="admin-select" required>
            {targets.map((o) => (
              <option key={o.value} value={o.value}>
                {o.connection
                  ? t("models.add.onConnection", { connection: o.connection, provider: o.provider })
                  : t("models.add.onProvider", { provider: o.provider })}
              </option>
            ))}
          </select>
        </label>
        <label className="admin-filter admin-filter-grow">
          <span>{t("models.add.providerModel")}</span>
          <Input
            name="providerModel"
            required
            maxLength={300}
            placeholder="fal-ai/flux/schnell"
            status={invalid("providerModel")}
          />
        </label>
        <label className="admin-filter">
          <span>{t("models.add.id")}</span>
          <Input name="id" maxLength={100} placeholder={t("models.add.idPlaceholder")} status={invalid("id")} />
        </label>
        <label className="admin-filter">
          <span>{t("models.add.name")}</span>
          <Input name="name" maxLength={100} status={invalid("name")} />
        </label>
        <label className="admin-filter">
          <span>{t("models.add.credits")}</span>
          <Input name="credits" type="number" min={0} step={1} required status={invalid("credits")} />
        </label>
        <label className="admin-filter">
          <span>{t("models.add.unit")}</span>
          <select name="unit" className="admin-select" defaultValue="">
            <option value="">{t("models.add.unitDefault")}</option>
            {(["image", "video", "videoSecond"] as const).map((u) => (
              <option key={u} value={u}>
                {t(`models.units.${u}`)}
              </option>
            ))}
          </select>
        </label>
        <label className="admin-filter">
          <span>{t("models.add.outputCredits")}</span>
          <Input name="outputCredits" type="number" min={0} step={1} status={invalid("outputCredits")} />
        </label>
        <fieldset className="admin-filter admin-fieldset">
          <legend>{t("models.add.tools")}</legend>
          {toolsOfKind("image").map((tool) => (
            <Checkbox key={tool} name="tools" value={tool} defaultChecked={tool === "text-to-image"}>
              {t(`models.tools.${tool}`)}
            </Checkbox>
          ))}
        </fieldset>
        <Checkbox name="enabled" defaultChecked>
          {t("models.add.enabled")}
        </Checkbox>
        <Button htmlType="submit" name="intent" value="add" type="primary" loading={busy}>
          {t("models.add.submit")}
        </Button>
      </Form>
      <Typography.Paragraph type="secondary" className="admin-hint">
        {t("models.add.hint")}
      </Typography.Paragraph>
    </Card>
  );
}
