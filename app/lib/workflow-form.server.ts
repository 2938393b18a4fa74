import { checkParameters, type ParameterField } from "#common/model-parameters.ts";
import { settingField } from "#server/providers/comfyui/workflow.ts";
import type { Workflow } from "#server/providers/comfyui/types.ts";
import type { MediaDefinition } from "#app/lib/model-form.server.ts";
import { workflowOf } from "#app/components/admin/workflow-inputs.tsx";
import { EditorRefusal } from "#app/lib/model-form.server.ts";

const text = (form: FormData, name: string) => String(form.get(name) ?? "").trim();

function numberOf(form: FormData, name: string): number | undefined {
  const v = text(form, name);
  if (v === "") return undefined;
  if (!/^-?\d{1,12}([.,]\d{1,9})?$/.test(v)) throw new EditorRefusal("workflowInputs.errors.limit", name);
  return Number(v.replace(",", "."));
}

/**
 * The settings users may set, as the workflow inputs card sends them (`slot.<n>.`): each of the workflow's `setting`
 * slots ticked `expose`, with its label, default, limits (within the slot's own) and choices (among the slot's own),
 * named by the slot's name. An unticked slot stays at the workflow's value. Refused with the field at fault.
 */
export function workflowParametersOfForm(form: FormData, workflow: Workflow): ParameterField[] {
  const out: ParameterField[] = [];
  for (let i = 0; form.has(`slot.${i}.name`); i++) {
    const name = text(form, `slot.${i}.name`);
    const slot = workflow.slots.find((s) => s.role === "setting" && s.name === name);
    if (!slot || !form.has(`slot.${i}.expose`)) continue;
    const label = text(form, `slot.${i}.label`);
    if (label.length > 100) throw new EditorRefusal("modelEditor.errors.label", `slot.${i}.label`, { name });
    const field = settingField(slot, label);
    if (field.type === "integer" || field.type === "number") {
      const min = numberOf(form, `slot.${i}.min`);
      const max = numberOf(form, `slot.${i}.max`);
      const whole = field.type === "integer";
      const outside = (v: number) =>
        (whole && !Number.isInteger(v)) ||
        (slot.min !== undefined && v < slot.min) ||
        (slot.max !== undefined && v > slot.max);
      if (min !== undefined && outside(min))
        throw new EditorRefusal("workflowInputs.errors.limit", `slot.${i}.min`, { name });
      if (max !== undefined && outside(max))
        throw new EditorRefusal("workflowInputs.errors.limit", `slot.${i}.max`, { name });
      if (min !== undefined && max !== undefined && min > max)
        throw new EditorRefusal("workflowInputs.errors.limit", `slot.${i}.max`, { name });
      if (min !== undefined) field.minimum = min;
      if (max !== undefined) field.maximum = max;
    }
    if (slot.choices && form.has(`slot.${i}.choicesShown`)) {
      const picked = form.getAll(`slot.${i}.choices`).map((c) => String(c));
      if (picked.length === 0 || picked.some((c) => !slot.choices!.includes(c)))
        throw new EditorRefusal("workflowInputs.errors.choices", `slot.${i}.choices`, { name });
      field.choices = field.type === "integer" || field.type === "number" ? picked.map(Number) : picked;
    }
    const raw = text(form, `slot.${i}.default`);
    delete field.default;
    const fallback = slot.value;
    const wanted = raw !== "" ? raw : fallback;
    if (wanted !== null && wanted !== undefined && wanted !== "") {
      const checked = checkParameters([field], { [field.name]: wanted });
      if (!checked.ok) throw new EditorRefusal("modelEditor.errors.default", `slot.${i}.default`, { name });
      field.default = checked.values[field.name];
    }
    out.push(field);
  }
  return out;
}

/** The model's definition with its parameters taken from the workflow inputs card, when the form carries one. */
export function withWorkflowParameters(form: FormData, definition: MediaDefinition): MediaDefinition {
  const workflow = workflowOf(definition);
  if (!workflow || !form.has("slots.shown")) return definition;
  const parameters = workflowParametersOfForm(form, workflow);
  const next = { ...definition };
  if (parameters.length > 0) next.parameters = parameters;
  else delete next.parameters;
  return next;
}
