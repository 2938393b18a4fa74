import type { ModelPrice, ParameterField, ParameterValue, ParameterValues } from "#common/model-parameters.ts";

/** A model's advanced settings as a form holds them: a value per field, absent when left to its default. */
export type SettingValues = Record<string, ParameterValue | undefined>;

/** The fields' defaults, as the form starts and as "reset" puts them back. */
export function defaultSettings(fields: readonly ParameterField[] | undefined): SettingValues {
  const out: SettingValues = {};
  for (const f of fields ?? []) if (f.default !== undefined) out[f.name] = f.default;
  return out;
}

/**
 * What the form sends as `options`: only the values that differ from their field's default (a value left empty is
 * the default too). The server adds the defaults back, so the price is the same either way.
 */
export function changedSettings(
  fields: readonly ParameterField[] | undefined,
  values: SettingValues,
): ParameterValues | undefined {
  const out: ParameterValues = {};
  for (const f of fields ?? []) {
    const v = values[f.name];
    if (v === undefined || v === "" || v === f.default) continue;
    out[f.name] = v;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Whether a price depends on more than the count or the seconds: its settings' multipliers, or a minimum. */
export const isFormula = (price: ModelPrice) =>
  Object.keys(price.multipliers ?? {}).length > 0 || (price.minimum ?? 0) > 0;

/**
 * The least a unit can cost with this formula (each setting at its cheapest factor, values not in the table counting
 * once), for the "from …" label of a model; two decimals at most.
 */
export function lowestUnitCredits(price: ModelPrice): number {
  let credits = price.credits;
  for (const table of Object.values(price.multipliers ?? {})) credits *= Math.min(1, ...Object.values(table));
  return Math.round(credits * 100) / 100;
}
