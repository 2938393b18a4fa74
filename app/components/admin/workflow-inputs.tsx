import { Checkbox, Input, Tag, Typography } from "antd";
import { useTranslation } from "react-i18next";
import type { ParameterField } from "#common/model-parameters.ts";
import type { Workflow, WorkflowSlot } from "#server/providers/comfyui/types.ts";

/** What the console shows of a workflow's slots (the graph itself stays on the server's side of the page). */
export type WorkflowView = Pick<Workflow, "kind" | "version"> & {
  slots: (Pick<WorkflowSlot, "name" | "role" | "targets" | "value" | "type" | "choices" | "min" | "max"> & {
    /** Each target's node: its title (or class) for the operator's eyes. */
    nodes: string[];
  })[];
};

/** A workflow as the console shows it: its slots with their nodes' titles, without the graph. */
export function workflowView(workflow: Workflow): WorkflowView {
  return {
    kind: workflow.kind,
    version: workflow.version,
    slots: workflow.slots.map((s) => ({
      name: s.name,
      role: s.role,
      targets: s.targets,
      value: s.value,
      type: s.type,
      ...(s.choices && { choices: s.choices }),
      ...(s.min !== undefined && { min: s.min }),
      ...(s.max !== undefined && { max: s.max }),
      nodes: s.targets.map(([id]) => workflow.graph[id]?._meta?.title ?? workflow.graph[id]?.class_type ?? id),
    })),
  };
}

/** The workflow a model runs (its first binding that has one), if any. */
export const workflowOf = (definition: { bindings: readonly { workflow?: Workflow }[] }): Workflow | undefined =>
  definition.bindings.find((b) => b.workflow)?.workflow;

const shown = (v: unknown) => {
  if (v === null || v === undefined || v === "") return "—";
  const s = String(v);
  return s.length > 80 ? `${s.slice(0, 79)}…` : s;
};

/**
 * The workflow inputs card's body: every slot with its role, node and the workflow's value; the common roles say
 * what fills them; each setting may be offered to users with a label, a default, limits and choices (`slot.<n>.`).
 * Plain form fields, read by `workflowParametersOfForm`; `typed` fills them again after a refused save.
 */
export function WorkflowInputs({
  workflow,
  parameters,
  typed,
  field,
}: {
  workflow: WorkflowView;
  parameters: readonly ParameterField[] | undefined;
  typed?: Record<string, string[]>;
  field?: string;
}) {
  const { t } = useTranslation("admin");
  const value = (name: string, own: unknown) =>
    typed ? (typed[name]?.[0] ?? "") : own === undefined || own === null ? "" : String(own);
  const status = (name: string) => (field === name ? ("error" as const) : undefined);
  let n = -1;
  return (
    <div className="admin-editor-scroll" data-workflow-inputs data-version={workflow.version}>
      <input type="hidden" name="slots.shown" value="1" />
      <table className="admin-editor-table admin-editor-stack">
        <thead>
          <tr>
            <th scope="col">{t("workflowInputs.role")}</th>
            <th scope="col">{t("workflowInputs.node")}</th>
            <th scope="col">{t("workflowInputs.value")}</th>
            <th scope="col">{t("workflowInputs.users")}</th>
          </tr>
        </thead>
        <tbody>
          {workflow.slots.map((slot) => {
            const setting = slot.role === "setting";
            const i = setting ? ++n : -1;
            const param = parameters?.find((p) => p.name === slot.name);
            const exposed = typed ? `slot.${i}.expose` in typed : param !== undefined;
            const numeric = slot.type === "integer" || slot.type === "number";
            const picked = typed
              ? (typed[`slot.${i}.choices`] ?? [])
              : (param?.choices?.map(String) ?? slot.choices ?? []);
            return (
              <tr key={slot.name} data-slot={slot.name} data-role={slot.role}>
                <th scope="row">
                  <Tag>{t(`workflowInputs.roles.${slot.role}`)}</Tag>{" "}
                  <Typography.Text code>{slot.name}</Typography.Text>
                </th>
                <td data-label={t("workflowInputs.node")}>
                  {slot.targets.map(([id, input], k) => (
                    <div key={`${id}/${input}`}>
                      {t("workflowInputs.target", { title: slot.nodes[k] ?? id, id, input })}
                    </div>
                  ))}
                </td>
                <td data-label={t("workflowInputs.value")}>
                  <Typography.Text className="admin-editor-note">{shown(slot.value)}</Typography.Text>
                </td>
                <td data-label={t("workflowInputs.users")} className="admin-editor-wide">
                  {!setting ? (
                    <Typography.Text type="secondary">{t(`workflowInputs.fills.${slot.role}`)}</Typography.Text>
                  ) : (
                    <div className="admin-workflow-setting">
                      <input type="hidden" name={`slot.${i}.name`} value={slot.name} />
                      <Checkbox name={`slot.${i}.expose`} value="1" defaultChecked={exposed}>
                        {t("workflowInputs.expose")}
                      </Checkbox>
                      <label>
                        <span>{t("modelEditor.label")}</span>
                        <Input
                          size="small"
                          name={`slot.${i}.label`}
                          maxLength={100}
                          placeholder={t("workflowInputs.labelPlaceholder")}
                          aria-label={t("modelEditor.labelOf", { name: slot.name })}
                          defaultValue={value(`slot.${i}.label`, param?.label)}
                          status={status(`slot.${i}.label`)}
                        />
                      </label>
                      <label>
                        <span>{t("modelEditor.default")}</span>
                        <Input
                          size="small"
                          name={`slot.${i}.default`}
                          maxLength={2000}
                          placeholder={shown(slot.value)}
                          aria-label={t("modelEditor.defaultOf", { name: slot.name })}
                          defaultValue={value(`slot.${i}.default`, param?.default)}
                          status={status(`slot.${i}.default`)}
                        />
                      </label>
                      {numeric && (
                        <>
                          <label>
                            <span>{t("workflowInputs.min")}</span>
                            <Input
                              size="small"
                              name={`slot.${i}.min`}
                              inputMode="decimal"
                              placeholder={slot.min === undefined ? "" : String(slot.min)}
                              defaultValue={value(`slot.${i}.min`, param?.minimum)}
                              status={status(`slot.${i}.min`)}
                            />
                          </label>
                          <label>
                            <span>{t("workflowInputs.max")}</span>
                            <Input
                              size="small"
                              name={`slot.${i}.max`}
                              inputMode="decimal"
                              placeholder={slot.max === undefined ? "" : String(slot.max)}
                              defaultValue={value(`slot.${i}.max`, param?.maximum)}
                              status={status(`slot.${i}.max`)}
                            />
                          </label>
                        </>
                      )}
                      {slot.choices && slot.choices.length > 0 && (
                        <label>
                          <span>{t("workflowInputs.choices")}</span>
                          <input type="hidden" name={`slot.${i}.choicesShown`} value="1" />
                          <select
                            multiple
                            name={`slot.${i}.choices`}
                            className="admin-select"
                            size={Math.min(5, Math.max(2, slot.choices.length))}
                            defaultValue={picked}
                            aria-invalid={field === `slot.${i}.choices` || undefined}
                          >
                            {slot.choices.map((c) => (
                              <option key={c} value={c}>
                                {c}
                              </option>
                            ))}
                          </select>
                        </label>
                      )}
                    </div>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <Typography.Paragraph type="secondary" className="admin-hint">
        {t("workflowInputs.hint")}
      </Typography.Paragraph>
    </div>
  );
}

/** The workflow file a pool's model is read from: a first upload or a new version. */
export function WorkflowFileField({ invalid }: { invalid: boolean }) {
  const { t } = useTranslation("admin");
  return (
    <label className="admin-filter admin-filter-grow">
      <span>{t("modelAdd.workflow")}</span>
      <input
        type="file"
        name="workflow"
        accept=".json,application/json"
        required
        className="admin-file"
        aria-invalid={invalid ? true : undefined}
      />
    </label>
  );
}
