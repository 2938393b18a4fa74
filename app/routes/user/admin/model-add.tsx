import { Alert, Button, Card, Input, Tag, Typography } from "antd";
import { useTranslation } from "react-i18next";
import { data, Form, Link, redirect, useLocation, useNavigation } from "react-router";
import type { Route } from "./+types/model-add";
import { pageMeta } from "#app/lib/page.server.ts";
import { seoMeta } from "#app/seo.ts";
import { requireAdmin } from "#app/lib/auth.server.ts";
import { formOf, localizedPath } from "#app/lib/request.server.ts";
import { refusalResult } from "#app/lib/catalog-admin.server.ts";
import {
  creditValueOf,
  editedDefinition,
  EditorRefusal,
  editorRefusalResult,
  mappingOfForm,
  typedOf,
  type MediaDefinition,
} from "#app/lib/model-form.server.ts";
import { ResultNotice, type AdminResult } from "#app/components/admin/user-actions.tsx";
import {
  LimitsEditor,
  MappingEditor,
  ParametersEditor,
  PriceEditor,
  schemaFields,
  TypedValues,
} from "#app/components/admin/model-editor.tsx";
import { WorkflowFileField, WorkflowInputs, workflowOf, workflowView } from "#app/components/admin/workflow-inputs.tsx";
import { withWorkflowParameters } from "#app/lib/workflow-form.server.ts";
import { addModel } from "#server/modules/catalog/edit-models.ts";
import { workflowName } from "#server/modules/catalog/replace-workflow.ts";
import { MAX_BYTES as MAX_WORKFLOW_FILE_BYTES } from "#server/providers/comfyui/graph.ts";
import { modelDefinitionSchema } from "#server/modules/catalog/model-definition.ts";
import { DescribeRefusal, type ModelDescription } from "#server/modules/catalog/model-description.ts";
import {
  describableConnections,
  proposeModel,
  type DescribableConnection,
} from "#server/modules/catalog/propose-model.ts";
import { hrefIn, type Locale } from "#common/locales.ts";

export const meta = ({ loaderData }: Route.MetaArgs) => seoMeta(loaderData?.seo);

/** The longest the console waits for a provider to describe a model. */
const DESCRIBE_TIMEOUT_MS = 20_000;

export async function loader({ context, request }: Route.LoaderArgs) {
  const { runtime } = requireAdmin(context, request);
  const { locale, i18n, seo } = pageMeta(context, request, ["admin"], (t) => ({
    title: t("admin:modelAdd.title"),
    noindex: true,
  }));
  await Promise.all([runtime.settings.refresh(), runtime.models.refresh()]);
  const { currency, creditValue } = creditValueOf(runtime.settings.current().packs);
  return { seo, i18n, locale, connections: describableConnections(runtime.models), currency, creditValue };
}

/** What the page carries from reading the schema to saving: the connection, the description and the proposal. */
interface Proposal {
  connection: DescribableConnection;
  description: Pick<
    ModelDescription,
    "provider" | "providerModel" | "kind" | "name" | "tools" | "unmet" | "fromSchema"
  > &
    Partial<Pick<ModelDescription, "cost" | "description" | "notes">>;
  definition: MediaDefinition;
  /** The catalog id proposed. */
  id: string;
}

type AddResult = AdminResult & { proposal?: Proposal; typed?: Record<string, string[]> };

const text = (form: FormData, name: string) => String(form.get(name) ?? "").trim();

/** The proposal the page carried, read back (its definition checked as any model's). */
function carried(form: FormData): Proposal | undefined {
  try {
    const value = JSON.parse(text(form, "proposal")) as Proposal;
    const definition = modelDefinitionSchema.safeParse(value.definition);
    if (!definition.success || definition.data.kind === "chat") return undefined;
    return { ...value, definition: definition.data };
  } catch {
    return undefined;
  }
}

export async function action({ context, request }: Route.ActionArgs) {
  const { db, runtime, actor } = requireAdmin(context, request);
  const form = await formOf(request);
  const intent = text(form, "intent");
  const typed = typedOf(form);
  if (intent === "describe") {
    const connection = text(form, "connection");
    await runtime.models.refresh();
    const on = describableConnections(runtime.models).find((c) => c.id === connection);
    // A provider whose models are files (a ComfyUI workflow): the file is the model, named by its base name.
    let model = text(form, "providerModel");
    let document: string | undefined;
    if (on?.documents) {
      const file = form.get("workflow");
      if (!(file instanceof File) || file.size === 0)
        return data<AddResult>({ intent, error: "modelAdd.workflowFile", field: "workflow", typed }, 400);
      if (file.size > MAX_WORKFLOW_FILE_BYTES)
        return data<AddResult>({ intent, error: "modelAdd.workflowTooLarge", field: "workflow", typed }, 400);
      document = await file.text();
      model = workflowName(file.name).slice(0, 300) || "workflow";
    } else if (!model || model.length > 300)
      return data<AddResult>({ intent, error: "models.errors.providerModel", field: "providerModel", typed }, 400);
    const { currency } = creditValueOf(runtime.settings.current().packs);
    try {
      const signal = AbortSignal.any([request.signal, AbortSignal.timeout(DESCRIBE_TIMEOUT_MS)]);
      const proposed = await proposeModel({ models: runtime.models, connection, model, document }, signal);
      const { description, id, definition } = proposed;
      // The provider's quoted cost is the margin's cost only in the packs' currency.
      if (description.cost && description.cost.currency.toLowerCase() !== currency.toLowerCase())
        delete definition.cost;
      const proposal: Proposal = {
        connection: proposed.connection,
        description: {
          provider: description.provider,
          providerModel: description.providerModel,
          kind: description.kind,
          name: description.name,
          tools: description.tools,
          unmet: description.unmet,
          fromSchema: description.fromSchema,
          ...(description.cost ? { cost: description.cost } : {}),
          ...(description.notes ? { notes: description.notes } : {}),
        },
        definition,
        id,
      };
      return { intent, proposal, typed } satisfies AddResult;
    } catch (error) {
      if (!(error instanceof DescribeRefusal)) throw error;
      // A workflow's refusal is the servers' own detail (which server lacks which node or file), framed.
      if (on?.documents)
        return data<AddResult>(
          { intent, error: "modelAdd.workflowRefused", field: "workflow", values: { detail: error.message }, typed },
          400,
        );
      return data<AddResult>(
        { intent, error: `modelAdd.refused.${error.code}`, field: "providerModel", values: { model }, typed },
        400,
      );
    }
  }
  if (intent !== "add") throw data({ messageKey: "error.400" }, { status: 400 });
  const proposal = carried(form);
  if (!proposal) throw data({ messageKey: "error.400" }, { status: 400 });
  const id = text(form, "id");
  const refuse = (result: AdminResult) => data<AddResult>({ ...result, proposal, typed }, 400);
  let definition: MediaDefinition;
  try {
    const edited = editedDefinition(form, withWorkflowParameters(form, proposal.definition));
    const mapping = mappingOfForm(form, "binding.0.map.");
    definition = {
      ...edited,
      name: text(form, "name"),
      enabled: false,
      bindings: edited.bindings.map((b, index) => {
        if (index > 0) return b;
        const { mapping: _old, ...rest } = b;
        return mapping ? { ...rest, mapping } : rest;
      }),
    };
  } catch (error) {
    if (!(error instanceof EditorRefusal)) throw error;
    return refuse(editorRefusalResult(intent, error));
  }
  try {
    const added = await addModel({ db, env: runtime.env, id, actor, definition });
    await runtime.models.refresh();
    throw redirect(localizedPath(request, `/user/admin/models/${added.id}?added=1`));
  } catch (error) {
    if (error instanceof Response) throw error;
    const refused = refusalResult(intent, error, { model: id });
    return refuse(refused.data);
  }
}

export default function AdminModelAdd({ loaderData, actionData }: Route.ComponentProps) {
  const { t } = useTranslation("admin");
  const { connections, currency, creditValue } = loaderData;
  const locale = loaderData.locale as Locale;
  const { pathname } = useLocation();
  const navigation = useNavigation();
  const busy = (intent: string) => navigation.state === "submitting" && navigation.formData?.get("intent") === intent;
  const result = actionData as AddResult | undefined;
  const proposal = result?.proposal;
  // The first step's fields keep what was typed; the editor's too, once a save was refused.
  const typedStep = result?.intent === "describe" ? result.typed : undefined;
  const typedEdit = result?.intent === "add" ? result.typed : undefined;
  const d = proposal?.definition;
  const byId = connections.filter((c) => !c.documents);
  const byFile = connections.filter((c) => c.documents);
  const workflow = d && workflowOf(d);
  return (
    <div className="page-wide admin-wide">
      <Link to={hrefIn(pathname, "/user/admin/models")} className="admin-back">
        {t("model.back")}
      </Link>
      <Typography.Title level={1} className="page-title">
        {t(byFile.length > 0 ? "modelAdd.titleAny" : "modelAdd.title")}
      </Typography.Title>
      <Typography.Paragraph type="secondary">
        {t(byFile.length > 0 ? "modelAdd.subtitleAny" : "modelAdd.subtitle")}
      </Typography.Paragraph>
      <ResultNotice result={result?.intent === "add" ? undefined : result} />
      <Card title={t("modelAdd.step1")} className="admin-create-codes">
        {connections.length === 0 ? (
          <Typography.Paragraph>
            {t("modelAdd.noConnection")}{" "}
            <Link to={hrefIn(pathname, "/user/admin/connections")}>{t("modelAdd.toConnections")}</Link>
          </Typography.Paragraph>
        ) : (
          <>
            {byId.length > 0 && (
              <Form method="post" className="admin-codes-form" data-describe>
                <ConnectionPicker
                  label={t("modelAdd.connection")}
                  connections={byId}
                  defaultValue={typedStep?.connection?.[0] ?? proposal?.connection.id ?? byId[0]?.id}
                />
                <label className="admin-filter admin-filter-grow">
                  <span>{t("models.add.providerModel")}</span>
                  <Input
                    name="providerModel"
                    required
                    maxLength={300}
                    placeholder="fal-ai/flux/dev"
                    defaultValue={typedStep?.providerModel?.[0] ?? proposal?.description.providerModel ?? ""}
                    status={result?.intent === "describe" && result.error ? "error" : undefined}
                  />
                </label>
                <Button htmlType="submit" name="intent" value="describe" type="primary" loading={busy("describe")}>
                  {t("modelAdd.describe")}
                </Button>
              </Form>
            )}
            {byFile.length > 0 && (
              <Form method="post" encType="multipart/form-data" className="admin-codes-form" data-describe-workflow>
                <ConnectionPicker
                  label={t("modelAdd.pool")}
                  connections={byFile}
                  defaultValue={typedStep?.connection?.[0] ?? proposal?.connection.id ?? byFile[0]?.id}
                />
                <WorkflowFileField invalid={result?.intent === "describe" && result.field === "workflow"} />
                <Button htmlType="submit" name="intent" value="describe" type="primary" loading={busy("describe")}>
                  {t("modelAdd.readWorkflow")}
                </Button>
              </Form>
            )}
          </>
        )}
        {(byId.length > 0 || connections.length === 0) && (
          <Typography.Paragraph type="secondary" className="admin-hint">
            {t("modelAdd.describeHint")}
          </Typography.Paragraph>
        )}
        {byFile.length > 0 && (
          <Typography.Paragraph type="secondary" className="admin-hint">
            {t("modelAdd.workflowHint")}
          </Typography.Paragraph>
        )}
      </Card>
      {proposal && d && (
        <TypedValues values={typedEdit} field={result?.intent === "add" ? result.field : undefined}>
          <Form
            method="post"
            className="admin-model-form"
            data-proposal={proposal.description.providerModel}
            key={`${proposal.connection.id}/${proposal.description.providerModel}`}
          >
            <input type="hidden" name="proposal" value={JSON.stringify(proposal)} />
            <Card title={t("modelAdd.step2")} className="admin-create-codes">
              <Typography.Paragraph>
                <Typography.Text code>{proposal.description.providerModel}</Typography.Text>{" "}
                <Tag data-kind={d.kind}>{t(`models.kinds.${d.kind}`)}</Tag>
                {t("modelAdd.on", { connection: proposal.connection.name, provider: proposal.connection.provider })}
              </Typography.Paragraph>
              <div className="admin-codes-form">
                <label className="admin-filter admin-filter-grow">
                  <span>{t("model.name")}</span>
                  <Input
                    name="name"
                    required
                    maxLength={100}
                    defaultValue={typedEdit?.name?.[0] ?? d.name}
                    status={result?.intent === "add" && result.field === "name" ? "error" : undefined}
                  />
                </label>
                <label className="admin-filter admin-filter-grow">
                  <span>{t("models.add.id")}</span>
                  <Input
                    name="id"
                    required
                    maxLength={100}
                    defaultValue={typedEdit?.id?.[0] ?? proposal.id}
                    status={result?.intent === "add" && result.field === "id" ? "error" : undefined}
                  />
                </label>
              </div>
              <dl className="admin-money admin-editor-facts">
                <div>
                  <dt>{t("modelAdd.tools")}</dt>
                  <dd data-tools={d.tools.join(" ")}>
                    {d.tools.length > 0
                      ? d.tools.map((tool) => <Tag key={tool}>{t(`modelAdd.toolNames.${tool}`)}</Tag>)
                      : "—"}
                  </dd>
                </div>
              </dl>
              {!proposal.description.fromSchema && (
                <Alert className="admin-notice" type="info" showIcon title={t("modelAdd.idsOnly")} />
              )}
              {proposal.description.notes?.map((note) => (
                <Alert
                  key={note}
                  className="admin-notice"
                  type="warning"
                  showIcon
                  data-note
                  title={t("modelAdd.workflowNote", { detail: note })}
                />
              ))}
              {proposal.description.unmet.length > 0 && (
                <Alert
                  className="admin-notice"
                  type="warning"
                  showIcon
                  data-unmet
                  title={t("modelAdd.unmet", { fields: proposal.description.unmet.join(", ") })}
                />
              )}
            </Card>
            {workflow ? (
              <Card title={t("workflowInputs.title", { version: workflow.version })} className="admin-create-codes">
                <WorkflowInputs
                  workflow={workflowView(workflow)}
                  parameters={d.parameters}
                  typed={typedEdit}
                  field={result?.intent === "add" ? result.field : undefined}
                />
              </Card>
            ) : (
              <Card title={t("modelEditor.mapping")} className="admin-create-codes">
                <MappingEditor
                  prefix="binding.0.map."
                  kind={d.kind}
                  mapping={d.bindings[0]?.mapping}
                  fields={schemaFields(d.bindings[0]?.mapping, d.parameters)}
                />
              </Card>
            )}
            <Card title={t("modelEditor.limitsTitle")} className="admin-create-codes">
              <LimitsEditor kind={d.kind} options={d.options} tools={d.tools} />
            </Card>
            {!workflow && (
              <Card title={t("modelEditor.parameters")} className="admin-create-codes">
                <ParametersEditor parameters={d.parameters ?? []} />
              </Card>
            )}
            <Card title={t("modelEditor.price")} className="admin-create-codes">
              <PriceEditor
                price={d.price}
                cost={d.cost ?? null}
                quoted={proposal.description.cost}
                parameters={d.parameters ?? []}
                locale={locale}
                currency={currency}
                creditValue={creditValue}
              />
            </Card>
            {result?.intent === "add" && <ResultNotice result={result} />}
            <div className="admin-codes-form">
              <Button htmlType="submit" name="intent" value="add" type="primary" loading={busy("add")}>
                {t("modelAdd.submit")}
              </Button>
            </div>
            <Typography.Paragraph type="secondary" className="admin-hint">
              {t("modelAdd.submitHint")}
            </Typography.Paragraph>
          </Form>
        </TypedValues>
      )}
    </div>
  );
}

/** The connections a model can be read on, as a list to choose one from. */
function ConnectionPicker({
  label,
  connections,
  defaultValue,
}: {
  label: string;
  connections: DescribableConnection[];
  defaultValue: string | undefined;
}) {
  const { t } = useTranslation("admin");
  return (
    <label className="admin-filter admin-filter-grow">
      <span>{label}</span>
      <select name="connection" className="admin-select" required defaultValue={defaultValue}>
        {connections.map((c) => (
          <option key={c.id} value={c.id}>
            {c.source === "custom"
              ? t("models.add.onConnection", { connection: c.name, provider: c.provider })
              : t("modelAdd.builtInConnection", { provider: c.provider })}
          </option>
        ))}
      </select>
    </label>
  );
}
