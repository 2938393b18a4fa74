import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { EditorRefusal } from "#app/lib/model-form.server.ts";
import { withWorkflowParameters, workflowParametersOfForm } from "#app/lib/workflow-form.server.ts";
import type { MediaDefinition } from "#app/lib/model-form.server.ts";
import { parseWorkflowFile, readWorkflow } from "#server/providers/comfyui/workflow.ts";
import type { Workflow } from "#server/providers/comfyui/types.ts";

const base = readWorkflow(parseWorkflowFile(readFileSync("docs/comfyui/text-to-image.json", "utf8")));
// As a server's node list describes KSampler's inputs.
const workflow: Workflow = {
  ...base,
  slots: base.slots.map((s) =>
    s.name === "steps"
      ? { ...s, min: 1, max: 10000 }
      : s.name === "sampler_name"
        ? { ...s, choices: ["euler", "euler_ancestral", "dpmpp_2m"] }
        : s,
  ),
};
/** The card's fields as the page sends them: each setting slot numbered in the workflow's order. */
function cardForm(values: Record<string, Record<string, string | string[]>>): FormData {
  const form = new FormData();
  form.set("slots.shown", "1");
  workflow.slots
    .filter((s) => s.role === "setting")
    .forEach((slot, i) => {
      form.set(`slot.${i}.name`, slot.name);
      if (slot.choices) form.set(`slot.${i}.choicesShown`, "1");
      for (const [key, value] of Object.entries(values[slot.name] ?? {}))
        for (const v of [value].flat()) form.append(`slot.${i}.${key}`, v);
    });
  return form;
}
const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    if (error instanceof EditorRefusal) return { key: error.key, field: error.field };
    throw error;
  }
  throw new Error("not refused");
};

describe("the workflow inputs card read back", () => {
  it("offers only the ticked settings, named by their slots, with the label, default and limits given", () => {
    const parameters = workflowParametersOfForm(
      cardForm({
        steps: { expose: "1", label: "Steps", default: "30", min: "10", max: "50" },
        cfg: { label: "ignored: not ticked" },
        sampler_name: { expose: "1", label: "", choices: ["euler", "dpmpp_2m"] },
      }),
      workflow,
    );
    expect(parameters).toEqual([
      { name: "steps", type: "integer", label: "Steps", default: 30, minimum: 10, maximum: 50 },
      { name: "sampler_name", type: "string", label: "Sampler name", default: "euler", choices: ["euler", "dpmpp_2m"] },
    ]);
  });

  it("keeps the workflow's value as the default when none is typed", () => {
    const [steps] = workflowParametersOfForm(cardForm({ steps: { expose: "1", label: "Steps" } }), workflow);
    expect(steps).toMatchObject({ name: "steps", default: 20, minimum: 1, maximum: 10000 });
  });

  it("refuses limits outside the workflow's own, a default outside them and no choice, naming the field", () => {
    expect(
      refusal(() => workflowParametersOfForm(cardForm({ steps: { expose: "1", max: "20000" } }), workflow)),
    ).toEqual({ key: "workflowInputs.errors.limit", field: "slot.0.max" });
    expect(
      refusal(() => workflowParametersOfForm(cardForm({ steps: { expose: "1", min: "30", max: "20" } }), workflow)),
    ).toEqual({ key: "workflowInputs.errors.limit", field: "slot.0.max" });
    expect(refusal(() => workflowParametersOfForm(cardForm({ steps: { expose: "1", min: "2.5" } }), workflow))).toEqual(
      { key: "workflowInputs.errors.limit", field: "slot.0.min" },
    );
    expect(
      refusal(() => workflowParametersOfForm(cardForm({ steps: { expose: "1", default: "many" } }), workflow)),
    ).toEqual({ key: "modelEditor.errors.default", field: "slot.0.default" });
    expect(
      refusal(() => workflowParametersOfForm(cardForm({ sampler_name: { expose: "1", choices: [] } }), workflow)),
    ).toEqual({ key: "workflowInputs.errors.choices", field: "slot.2.choices" });
    expect(
      refusal(() => workflowParametersOfForm(cardForm({ sampler_name: { expose: "1", choices: ["lms"] } }), workflow)),
    ).toEqual({ key: "workflowInputs.errors.choices", field: "slot.2.choices" });
  });

  it("ignores a slot the workflow does not have and a common input sent as a setting", () => {
    const form = cardForm({});
    form.set("slot.9.name", "prompt");
    form.set("slot.9.expose", "1");
    expect(workflowParametersOfForm(form, workflow)).toEqual([]);
  });

  it("sets the model's parameters only when the form carries the card", () => {
    const definition = {
      kind: "image",
      bindings: [{ provider: "comfyui", model: "text-to-image", workflow }],
      parameters: [{ name: "cfg", type: "integer", label: "CFG" }],
    } as unknown as MediaDefinition;
    expect(withWorkflowParameters(new FormData(), definition)).toBe(definition);
    expect(withWorkflowParameters(cardForm({}), definition).parameters).toBeUndefined();
    expect(
      withWorkflowParameters(cardForm({ cfg: { expose: "1", label: "Guidance" } }), definition).parameters,
    ).toEqual([{ name: "cfg", type: "integer", label: "Guidance", default: 8 }]);
  });
});
