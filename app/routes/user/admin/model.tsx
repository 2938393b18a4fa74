import { SAFETY_LEVELS } from "#common/safety.ts";
import { Button, Card, Checkbox, Input, Tag, Typography } from "antd";
import { useEffect } from "react";
import { useTranslation } from "react-i18next";
import { data, Form, Link, redirect, useLocation, useNavigation, useRevalidator } from "react-router";
import type { Route } from "./+types/model";
import { pageMeta } from "#app/lib/page.server.ts";
import { seoMeta } from "#app/seo.ts";
import { requireAdmin } from "#app/lib/auth.server.ts";
import { formOf, localizedPath } from "#app/lib/request.server.ts";
import { offerRefusal, refusalResult } from "#app/lib/catalog-admin.server.ts";
import { ResultNotice, type AdminResult } from "#app/components/admin/user-actions.tsx";
import { HealthLine } from "#app/components/admin/health-line.tsx";
import {
  LimitsEditor,
  MappingEditor,
  ParametersEditor,
  PriceEditor,
  schemaFields,
  TypedValues,
} from "#app/components/admin/model-editor.tsx";
import {
  creditValueOf,
  editedDefinition,
  EditorRefusal,
  editorRefusalResult,
  mappingOfForm,
  typedOf,
  unlessSame,
} from "#app/lib/model-form.server.ts";
import { WorkflowFileField, WorkflowInputs, workflowOf, workflowView } from "#app/components/admin/workflow-inputs.tsx";
import { withWorkflowParameters } from "#app/lib/workflow-form.server.ts";
import { DescribeRefusal } from "#server/modules/catalog/model-description.ts";
import { replaceWorkflow, WorkflowVersionRefusal } from "#server/modules/catalog/replace-workflow.ts";
import { MAX_BYTES as MAX_WORKFLOW_FILE_BYTES } from "#server/providers/comfyui/graph.ts";
import { latestModelChecks, untestedWorkflows, startModelCheck } from "#server/modules/generation/model-checks.ts";
import type { ResolvedBinding } from "#config/models.ts";
import { changeModel, removeModel } from "#server/modules/catalog/edit-models.ts";
import type { ModelDefinition } from "#server/modules/catalog/model-definition.ts";
import { providers } from "#server/providers/registry.ts";
import { hrefIn, LOCALE_NAMES, LOCALES, type Locale } from "#common/locales.ts";

export const meta = ({ loaderData }: Route.MetaArgs) => seoMeta(loaderData?.seo);

/** The longest the page waits for the servers to read a new version of a workflow. */
const DESCRIBE_TIMEOUT_MS = 20_000;

const notFound = () => data({ messageKey: "error.404" }, { status: 404 });

export async function loader({ context, request, params }: Route.LoaderArgs) {
  const { db, runtime } = requireAdmin(context, request);
  await Promise.all([runtime.settings.refresh(), runtime.models.refresh()]);
  const entry = runtime.models.entry(params.id);
  if (!entry) throw notFound();
  const { locale, i18n, seo } = pageMeta(context, request, ["admin"], (t) => ({
    title: t("admin:model.title", { model: entry.definition.name }),
    noindex: true,
  }));
  const d = entry.definition;
  const targets = [
    ...providers
      .filter((p) => (p.capabilities as readonly string[]).includes(d.kind))
      .map((p) => ({ value: `provider:${p.id}`, provider: p.id, connection: null as string | null })),
    ...runtime.models
      .connections()
      .filter((c) => c.source === "custom")
      .map((c) => ({ value: `connection:${c.id}`, provider: c.provider, connection: c.name })),
  ];
  const model = {
    id: entry.id,
    kind: d.kind,
    source: entry.source,
    changed: entry.changed.length > 0,
    state: entry.state,
    name: d.name,
    names: d.names ?? {},
    description: d.description ?? {},
    tags: d.tags ?? [],
    cover: d.cover ?? "",
    enabled: d.enabled,
    visibility: d.visibility,
    safety: d.safety ?? "",
    label: d.kind === "image" && d.label === true,
    price:
      d.kind === "chat"
        ? { input: d.price.inputPerMillion, output: d.price.outputPerMillion, unit: null, credits: null }
        : { input: null, output: null, unit: d.price.unit, credits: d.price.credits },
    expectedSeconds: d.kind === "chat" ? null : d.expectedSeconds,
    timeoutSeconds: d.kind === "chat" ? null : d.timeoutSeconds,
    bindings: d.bindings.map((b) => ({
      target: b.connection ? `connection:${b.connection}` : `provider:${b.provider}`,
      model: b.model,
      imageToImageModel: "imageToImageModel" in b ? (b.imageToImageModel ?? "") : "",
      options: b.options ? JSON.stringify(b.options) : "",
      // A workflow's inputs are its slots (the workflow inputs card), not a mapping of provider fields.
      workflow: "workflow" in b && b.workflow !== undefined,
    })),
  };
  // The model's mapping, limits, advanced settings and price formula, and the latest test on each connection.
  const media = d.kind === "chat" ? null : d;
  const checks = media
    ? (await latestModelChecks({ db, models: runtime.models })).filter((c) => c.modelId === entry.id)
    : [];
  const editor = media && {
    kind: media.kind,
    tools: media.tools,
    mappings: media.bindings.map((b) => ({ mapping: b.mapping, fields: schemaFields(b.mapping, media.parameters) })),
    options: media.options,
    parameters: media.parameters ?? [],
    workflow: (() => {
      const workflow = workflowOf(media);
      return workflow ? workflowView(workflow) : null;
    })(),
    price: media.price,
    cost: media.cost ?? null,
    health: (entry.resolved as ResolvedBinding[]).map((b, index) => ({
      provider: b.provider,
      check: checks.find((c) => c.binding === index && c.provider === b.provider) ?? null,
    })),
    // A workflow version is offered once a test of it passed.
    untested: (
      await untestedWorkflows({ db, model: { id: entry.id, kind: media.kind, bindings: media.bindings } })
    ).map((u) => u.version),
  };
  const { currency, creditValue } = creditValueOf(runtime.settings.current().packs);
  const added = new URL(request.url).searchParams.has("added");
  return { seo, i18n, locale, model, targets, editor, currency, creditValue, added, now: new Date().toISOString() };
}

const textOf = (form: FormData, name: string) => String(form.get(name) ?? "").trim();

/** A whole number from a form (blank: undefined; not a number: NaN, which the model's schema refuses). */
const numberOf = (form: FormData, name: string) => {
  const text = textOf(form, name);
  return text === "" ? undefined : Number(text.replace(",", "."));
};

export async function action({ context, request, params }: Route.ActionArgs) {
  const { db, runtime, actor } = requireAdmin(context, request);
  const form = await formOf(request);
  const intent = String(form.get("intent") ?? "");
  const entry = runtime.models.entry(params.id);
  if (!entry) throw notFound();
  const values = { model: entry.definition.name };
  if (entry.definition.kind !== "chat" && (intent === "check" || intent === "enable" || intent === "disable"))
    return testOrSwitch({ db, runtime, actor, id: entry.id, intent, values });
  if (intent === "remove") {
    try {
      await removeModel({ db, env: runtime.env, id: entry.id, actor });
    } catch (error) {
      return refusalResult(intent, error, values);
    }
    await runtime.models.refresh();
    // A removed model has no page; a built-in one set back to its definition keeps it.
    if (entry.source === "custom") throw redirect(localizedPath(request, "/user/admin/models"));
    return { intent, ok: "models.resetDone", values } satisfies AdminResult;
  }
  if (intent === "workflowVersion") return newWorkflowVersion({ db, runtime, actor, id: entry.id, form, values });
  if (intent !== "save") throw data({ messageKey: "error.400" }, { status: 400 });
  const perLocale = (prefix: string) => {
    const out: Record<string, string> = {};
    for (const l of LOCALES) {
      const v = textOf(form, `${prefix}.${l}`);
      if (v) out[l] = v;
    }
    return Object.keys(out).length > 0 ? out : undefined;
  };
  // Bindings in the order given by their numbers; a row without a provider model id is left out.
  const rows: { order: number; index: number; binding: Record<string, unknown> }[] = [];
  for (let index = 0; form.has(`binding.${index}.target`); index++) {
    const model = textOf(form, `binding.${index}.model`);
    if (!model) continue;
    const [how, target = ""] = textOf(form, `binding.${index}.target`).split(":");
    const connection = how === "connection" ? runtime.models.connections().find((c) => c.id === target) : undefined;
    const provider = how === "provider" ? target : connection?.provider;
    if (!provider || (how === "connection" && !connection))
      return data<AdminResult>({ intent, error: "models.errors.target", field: `bindings.${index}` }, { status: 400 });
    const optionsText = textOf(form, `binding.${index}.options`);
    let options: unknown;
    if (optionsText) {
      try {
        options = JSON.parse(optionsText);
      } catch {
        options = null;
      }
      if (!options || typeof options !== "object" || Array.isArray(options))
        return data<AdminResult>(
          { intent, error: "models.errors.options", field: `bindings.${index}.options` },
          { status: 400 },
        );
    }
    const imageToImageModel = textOf(form, `binding.${index}.imageToImageModel`);
    const keptBinding = entry.definition.bindings[index];
    const keptToolModels = keptBinding && "toolModels" in keptBinding ? keptBinding.toolModels : undefined;
    let mapping;
    try {
      const kept = entry.definition.bindings[index];
      mapping =
        entry.definition.kind === "chat"
          ? undefined
          : unlessSame(
              mappingOfForm(form, `binding.${index}.map.`),
              kept && "mapping" in kept ? kept.mapping : undefined,
            );
    } catch (error) {
      if (!(error instanceof EditorRefusal)) throw error;
      return data({ ...editorRefusalResult(intent, error), typed: typedOf(form) }, { status: 400 });
    }
    rows.push({
      order: numberOf(form, `binding.${index}.order`) ?? index + 1,
      index,
      binding: {
        provider,
        ...(connection ? { connection: connection.id } : {}),
        model,
        ...(imageToImageModel && entry.definition.kind !== "chat" ? { imageToImageModel } : {}),
        // The page does not edit a tool's own provider model: the binding keeps the ones it had.
        ...(keptToolModels ? { toolModels: keptToolModels } : {}),
        // Nor its workflow: a new version is uploaded on its own.
        ...(keptBinding && "workflow" in keptBinding && keptBinding.workflow ? { workflow: keptBinding.workflow } : {}),
        ...(options ? { options } : {}),
        ...(mapping ? { mapping } : {}),
      },
    });
  }
  rows.sort((a, b) => a.order - b.order || a.index - b.index);
  // Switching a model on asks its servers first, as the test card's switch does.
  if (form.get("enabled") !== null && !entry.definition.enabled) {
    const refused = await offerRefusal(
      { db, connections: runtime.models },
      { id: entry.id, definition: entry.definition, intent, values },
    );
    if (refused) return refused;
  }
  const tags = textOf(form, "tags")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  try {
    const changed = await changeModel({
      db,
      env: runtime.env,
      id: entry.id,
      actor,
      change: (current: ModelDefinition) => {
        const next: Record<string, unknown> = {
          ...current,
          name: textOf(form, "name"),
          names: perLocale("names"),
          description: perLocale("description"),
          tags: tags.length > 0 ? tags : undefined,
          cover: textOf(form, "cover") || undefined,
          enabled: form.get("enabled") !== null,
          visibility: textOf(form, "visibility"),
          bindings: rows.map((r) => r.binding),
        };
        if (current.kind === "image") next.label = form.get("label") !== null || undefined;
        if (current.kind === "chat")
          next.price = { inputPerMillion: numberOf(form, "input"), outputPerMillion: numberOf(form, "output") };
        else {
          const edited = editedDefinition(form, withWorkflowParameters(form, current));
          next.price = edited.price;
          next.cost = edited.cost;
          next.options = edited.options;
          next.parameters = edited.parameters;
          next.expectedSeconds = numberOf(form, "expectedSeconds");
          next.timeoutSeconds = numberOf(form, "timeoutSeconds");
          const safety = textOf(form, "safety");
          next.safety = (SAFETY_LEVELS as readonly string[]).includes(safety) ? safety : undefined;
        }
        for (const key of Object.keys(next)) if (next[key] === undefined) delete next[key];
        return next;
      },
    });
    await runtime.models.refresh();
    return { intent, ok: changed ? "model.saved" : "settings.unchanged", values } satisfies AdminResult;
  } catch (error) {
    if (error instanceof EditorRefusal)
      return data({ ...editorRefusalResult(intent, error), typed: typedOf(form) }, { status: 400 });
    return refusalResult(intent, error, values);
  }
}

/** Tests the model on each connection it runs on, or switches it on or off. */
async function testOrSwitch({
  db,
  runtime,
  actor,
  id,
  intent,
  values,
}: {
  db: ReturnType<typeof requireAdmin>["db"];
  runtime: ReturnType<typeof requireAdmin>["runtime"];
  actor: ReturnType<typeof requireAdmin>["actor"];
  id: string;
  intent: "check" | "enable" | "disable";
  values: Record<string, string>;
}) {
  if (intent === "check") {
    const outcome = await startModelCheck({ db, boss: runtime.boss, models: runtime.models, modelId: id, actor });
    if ("refused" in outcome)
      return data<AdminResult>(
        { intent, error: outcome.refused === "running" ? "models.checkRunning" : "models.checkNoProvider", values },
        { status: 409 },
      );
    return { intent, ok: "models.checkStarted", values } satisfies AdminResult;
  }
  if (intent === "enable") {
    const entry = runtime.models.entry(id);
    if (entry && !entry.definition.enabled) {
      const refused = await offerRefusal(
        { db, connections: runtime.models },
        { id, definition: entry.definition, intent, values },
      );
      if (refused) return refused;
    }
  }
  try {
    const changed = await changeModel({
      db,
      env: runtime.env,
      id,
      actor,
      change: (current) => ({ ...current, enabled: intent === "enable" }),
    });
    await runtime.models.refresh();
    return {
      intent,
      ok: !changed ? "settings.unchanged" : intent === "enable" ? "models.enabled" : "models.disabled",
      values,
    } satisfies AdminResult;
  } catch (error) {
    return refusalResult(intent, error, values);
  }
}

/** Makes an uploaded workflow the model's next version (`replaceWorkflow`, as the command line does). */
async function newWorkflowVersion({
  db,
  runtime,
  actor,
  id,
  form,
  values,
}: {
  db: ReturnType<typeof requireAdmin>["db"];
  runtime: ReturnType<typeof requireAdmin>["runtime"];
  actor: ReturnType<typeof requireAdmin>["actor"];
  id: string;
  form: FormData;
  values: Record<string, string>;
}) {
  const intent = "workflowVersion";
  const file = form.get("workflow");
  if (!(file instanceof File) || file.size === 0)
    return data<AdminResult>({ intent, error: "modelAdd.workflowFile", field: "workflow", values }, { status: 400 });
  if (file.size > MAX_WORKFLOW_FILE_BYTES)
    return data<AdminResult>(
      { intent, error: "modelAdd.workflowTooLarge", field: "workflow", values },
      { status: 400 },
    );
  try {
    const { version } = await replaceWorkflow(
      { db, env: runtime.env, models: runtime.models, id, actor, fileName: file.name, document: await file.text() },
      AbortSignal.timeout(DESCRIBE_TIMEOUT_MS),
    );
    return {
      intent,
      ok: "workflowInputs.newVersion",
      values: { ...values, version: String(version) },
    } satisfies AdminResult;
  } catch (error) {
    if (error instanceof DescribeRefusal)
      return data<AdminResult>(
        { intent, error: "modelAdd.workflowRefused", field: "workflow", values: { ...values, detail: error.message } },
        { status: 400 },
      );
    if (error instanceof WorkflowVersionRefusal) {
      if (error.code === "same")
        return {
          intent,
          ok: "workflowInputs.same",
          values: { ...values, version: error.detail },
        } satisfies AdminResult;
      return data<AdminResult>(
        { intent, error: `workflowInputs.refused.${error.code}`, field: "workflow", values },
        { status: 400 },
      );
    }
    return refusalResult(intent, error, values);
  }
}

export default function AdminModel({ loaderData, actionData }: Route.ComponentProps) {
  const { t } = useTranslation("admin");
  const { model, targets, editor } = loaderData;
  const locale = loaderData.locale as Locale;
  const { pathname, search } = useLocation();
  const result = actionData as (AdminResult & { typed?: Record<string, string[]> }) | undefined;
  // While a test runs, the page asks for its outcome every 2 seconds (before the scripts, a reload shows it).
  const revalidator = useRevalidator();
  const testing = editor?.health.some((h) => h.check?.status === "running") ?? false;
  useEffect(() => {
    if (!testing) return;
    const timer = setInterval(() => {
      if (revalidator.state === "idle") void revalidator.revalidate();
    }, 2000);
    return () => clearInterval(timer);
  }, [testing, revalidator]);
  const typed = result?.intent === "save" && result.error ? result.typed : undefined;
  const navigation = useNavigation();
  const busy = (intent: string) => navigation.state === "submitting" && navigation.formData?.get("intent") === intent;
  const invalid = (...fields: string[]) =>
    result?.field && fields.some((f) => result.field === f || result.field!.startsWith(`${f}.`))
      ? ("error" as const)
      : undefined;
  const removing = new URLSearchParams(search).has("remove") && !result?.ok;
  const canRemove = model.source === "custom" || model.changed;
  // One empty row more, to add a binding.
  const bindings = [
    ...model.bindings,
    { target: targets[0]?.value ?? "", model: "", imageToImageModel: "", options: "", workflow: false },
  ];
  const field = (name: string, label: string, input: React.ReactNode, grow = false) => (
    <label className={grow ? "admin-filter admin-filter-grow" : "admin-filter"} key={name}>
      <span>{label}</span>
      {input}
    </label>
  );
  return (
    <div className="page-wide admin-wide">
      <Link to={hrefIn(pathname, "/user/admin/models")} className="admin-back">
        {t("model.back")}
      </Link>
      <Typography.Title level={1} className="page-title">
        {model.name}
      </Typography.Title>
      <Typography.Paragraph type="secondary">
        <Typography.Text code>{model.id}</Typography.Text> <Tag>{t(`models.kinds.${model.kind}`)}</Tag>
        <Tag>{t(`models.states.${model.state}`)}</Tag>
        {model.source === "custom" && <Tag color="blue">{t("models.customTag")}</Tag>}
      </Typography.Paragraph>
      <ResultNotice
        result={result ?? (loaderData.added ? { ok: "modelAdd.added", values: { model: model.name } } : undefined)}
      />
      {editor && (
        <Card title={t("modelEditor.testTitle")} className="admin-create-codes" data-test-card>
          <div className="admin-stack admin-editor-gap" data-health={model.id}>
            <span>
              <Tag data-state={model.state}>{t(`models.states.${model.state}`)}</Tag>
            </span>
            {editor.health.map((h, index) => (
              <HealthLine
                key={`${h.provider}-${index}`}
                provider={h.provider}
                check={h.check}
                locale={locale}
                now={new Date(loaderData.now)}
              />
            ))}
          </div>
          <Form method="post" className="admin-codes-form admin-editor-actions">
            {editor.health.length > 0 && (
              <Button htmlType="submit" name="intent" value="check" loading={busy("check")} disabled={testing}>
                {t("models.check")}
              </Button>
            )}
            {model.enabled ? (
              <Button htmlType="submit" name="intent" value="disable" danger loading={busy("disable")}>
                {t("models.disable")}
              </Button>
            ) : (
              <Button htmlType="submit" name="intent" value="enable" type="primary" loading={busy("enable")}>
                {t("models.enable")}
              </Button>
            )}
          </Form>
          {editor.untested.length > 0 && (
            <Typography.Paragraph type="warning" className="admin-hint" data-untested={editor.untested[0]}>
              {t("workflowInputs.testFirst", { version: editor.untested[0] })}
            </Typography.Paragraph>
          )}
          <Typography.Paragraph type="secondary" className="admin-hint">
            {t("models.checkHint")}
          </Typography.Paragraph>
        </Card>
      )}
      {editor?.workflow && (
        <Card title={t("workflowInputs.newVersionTitle")} className="admin-create-codes" data-workflow-version>
          <Typography.Paragraph>{t("workflowInputs.runs", { version: editor.workflow.version })}</Typography.Paragraph>
          <Form method="post" encType="multipart/form-data" className="admin-codes-form">
            <WorkflowFileField invalid={result?.intent === "workflowVersion" && result.field === "workflow"} />
            <Button htmlType="submit" name="intent" value="workflowVersion" loading={busy("workflowVersion")}>
              {t("workflowInputs.upload")}
            </Button>
          </Form>
          <Typography.Paragraph type="secondary" className="admin-hint">
            {t("workflowInputs.newVersionHint")}
          </Typography.Paragraph>
        </Card>
      )}
      {removing && canRemove && (
        <Card
          title={model.source === "custom" ? t("model.removeTitle") : t("model.resetTitle")}
          className="admin-create-codes"
        >
          <Typography.Paragraph>
            {model.source === "custom"
              ? t("model.removeConfirm", { model: model.name })
              : t("model.resetConfirm", { model: model.name })}
          </Typography.Paragraph>
          <Form method="post" className="admin-codes-form">
            <Button htmlType="submit" name="intent" value="remove" danger type="primary" loading={busy("remove")}>
              {model.source === "custom" ? t("models.remove") : t("models.resetAction")}
            </Button>
            <Link to={pathname}>{t("connections.cancel")}</Link>
          </Form>
        </Card>
      )}
      <TypedValues values={typed} field={typed ? result?.field : undefined}>
        <Form method="post" className="admin-model-form" data-model-form={model.id}>
          <Card title={t("model.presentation")} className="admin-create-codes">
            <div className="admin-codes-form">
              {field(
                "name",
                t("model.name"),
                <Input name="name" required maxLength={100} defaultValue={model.name} status={invalid("name")} />,
                true,
              )}
              {field(
                "tags",
                t("model.tags"),
                <Input
                  name="tags"
                  defaultValue={model.tags.join(", ")}
                  placeholder={t("model.tagsPlaceholder")}
                  status={invalid("tags")}
                />,
                true,
              )}
              {field(
                "cover",
                t("model.cover"),
                <Input name="cover" defaultValue={model.cover} placeholder="https://" status={invalid("cover")} />,
                true,
              )}
              {field(
                "visibility",
                t("model.visibility"),
                <select name="visibility" className="admin-select" defaultValue={model.visibility}>
                  <option value="everyone">{t("model.everyone")}</option>
                  <option value="admins">{t("model.admins")}</option>
                </select>,
              )}
              {model.kind !== "chat" &&
                field(
                  "safety",
                  t("safety.title"),
                  <select name="safety" className="admin-select" defaultValue={model.safety}>
                    <option value="">{t("safety.levels.site")}</option>
                    {SAFETY_LEVELS.map((level) => (
                      <option key={level} value={level}>
                        {t(`safety.levels.${level}`)}
                      </option>
                    ))}
                  </select>,
                )}
              <Checkbox name="enabled" defaultChecked={model.enabled}>
                {t("model.enabled")}
              </Checkbox>
              {model.kind === "image" && (
                <Checkbox name="label" defaultChecked={model.label}>
                  {t("model.label")}
                </Checkbox>
              )}
            </div>
            <details className="admin-details">
              <summary>{t("model.perLocale")}</summary>
              <div className="admin-locale-grid">
                {LOCALES.map((l: Locale) => (
                  <fieldset key={l} className="admin-fieldset">
                    <legend>{LOCALE_NAMES[l]}</legend>
                    {field(
                      `names.${l}`,
                      t("model.localName"),
                      <Input
                        name={`names.${l}`}
                        maxLength={500}
                        defaultValue={model.names[l] ?? ""}
                        status={invalid(`names.${l}`)}
                      />,
                    )}
                    {field(
                      `description.${l}`,
                      t("model.description"),
                      <Input.TextArea
                        name={`description.${l}`}
                        rows={2}
                        maxLength={500}
                        defaultValue={model.description[l] ?? ""}
                        status={invalid(`description.${l}`)}
                      />,
                    )}
                  </fieldset>
                ))}
              </div>
            </details>
          </Card>
          <Card
            title={model.kind === "chat" ? t("model.priceAndTime") : t("modelEditor.time")}
            className="admin-create-codes"
          >
            <div className="admin-codes-form">
              {model.kind === "chat" ? (
                <>
                  {field(
                    "input",
                    t("model.inputPerMillion"),
                    <Input
                      name="input"
                      type="number"
                      min={0}
                      step={1}
                      required
                      defaultValue={model.price.input ?? 0}
                      status={invalid("price")}
                    />,
                  )}
                  {field(
                    "output",
                    t("model.outputPerMillion"),
                    <Input
                      name="output"
                      type="number"
                      min={0}
                      step={1}
                      required
                      defaultValue={model.price.output ?? 0}
                      status={invalid("price")}
                    />,
                  )}
                </>
              ) : (
                <>
                  {field(
                    "expectedSeconds",
                    t("model.expectedSeconds"),
                    <Input
                      name="expectedSeconds"
                      type="number"
                      min={0.1}
                      step="any"
                      required
                      defaultValue={model.expectedSeconds ?? 20}
                      status={invalid("expectedSeconds")}
                    />,
                  )}
                  {field(
                    "timeoutSeconds",
                    t("model.timeoutSeconds"),
                    <Input
                      name="timeoutSeconds"
                      type="number"
                      min={1}
                      step={1}
                      required
                      defaultValue={model.timeoutSeconds ?? 300}
                      status={invalid("timeoutSeconds")}
                    />,
                  )}
                </>
              )}
            </div>
          </Card>
          {editor && (
            <>
              <Card title={t("modelEditor.price")} className="admin-create-codes">
                <PriceEditor
                  price={editor.price}
                  cost={editor.cost}
                  parameters={editor.parameters}
                  locale={locale}
                  currency={loaderData.currency}
                  creditValue={loaderData.creditValue}
                />
              </Card>
              <Card title={t("modelEditor.limitsTitle")} className="admin-create-codes">
                <LimitsEditor kind={editor.kind} options={editor.options} tools={editor.tools} />
              </Card>
              {editor.workflow ? (
                <Card
                  title={t("workflowInputs.title", { version: editor.workflow.version })}
                  className="admin-create-codes"
                >
                  <WorkflowInputs
                    workflow={editor.workflow}
                    parameters={editor.parameters}
                    typed={typed}
                    field={typed ? result?.field : undefined}
                  />
                </Card>
              ) : (
                <Card title={t("modelEditor.parameters")} className="admin-create-codes">
                  <ParametersEditor parameters={editor.parameters} />
                </Card>
              )}
            </>
          )}
          <Card title={t("model.bindings")} className="admin-create-codes">
            <Typography.Paragraph type="secondary">{t("model.bindingsHint")}</Typography.Paragraph>
            {bindings.map((b, index) => (
              <fieldset key={index} className="admin-fieldset admin-codes-form admin-binding" data-binding={index}>
                <legend>
                  {index < model.bindings.length ? t("model.binding", { n: index + 1 }) : t("model.newBinding")}
                </legend>
                {field(
                  `binding.${index}.order`,
                  t("model.order"),
                  <Input name={`binding.${index}.order`} type="number" min={1} step={1} defaultValue={index + 1} />,
                )}
                {field(
                  `binding.${index}.target`,
                  t("models.add.target"),
                  <select name={`binding.${index}.target`} className="admin-select" defaultValue={b.target}>
                    {targets.map((o) => (
                      <option key={o.value} value={o.value}>
                        {o.connection
                          ? t("models.add.onConnection", { connection: o.connection, provider: o.provider })
                          : t("models.add.onProvider", { provider: o.provider })}
                      </option>
                    ))}
                    {!targets.some((o) => o.value === b.target) && <option value={b.target}>{b.target}</option>}
                  </select>,
                  true,
                )}
                {field(
                  `binding.${index}.model`,
                  t("models.add.providerModel"),
                  <Input
                    name={`binding.${index}.model`}
                    defaultValue={b.model}
                    status={invalid(`bindings.${index}`)}
                  />,
                  true,
                )}
                {editor && index < model.bindings.length && !model.bindings[index]?.workflow && (
                  <details className="admin-details admin-editor-binding-map" open={index === 0}>
                    <summary>{t("modelEditor.mapping")}</summary>
                    <MappingEditor
                      prefix={`binding.${index}.map.`}
                      kind={editor.kind}
                      mapping={editor.mappings[index]?.mapping}
                      fields={editor.mappings[index]?.fields ?? []}
                    />
                  </details>
                )}
                {model.kind !== "chat" &&
                  field(
                    `binding.${index}.imageToImageModel`,
                    t("model.imageToImageModel"),
                    <Input name={`binding.${index}.imageToImageModel`} defaultValue={b.imageToImageModel} />,
                    true,
                  )}
                {field(
                  `binding.${index}.options`,
                  t("model.options"),
                  <Input.TextArea
                    name={`binding.${index}.options`}
                    rows={1}
                    defaultValue={b.options}
                    placeholder='{"num_inference_steps": 4}'
                    status={invalid(`bindings.${index}.options`)}
                  />,
                  true,
                )}
              </fieldset>
            ))}
          </Card>
          <div className="admin-codes-form">
            <Button htmlType="submit" name="intent" value="save" type="primary" loading={busy("save")}>
              {t("model.save")}
            </Button>
            {canRemove && (
              <Button danger href={`${pathname}?remove=1`}>
                {model.source === "custom" ? t("models.remove") : t("models.resetAction")}
              </Button>
            )}
          </div>
        </Form>
      </TypedValues>
    </div>
  );
}
