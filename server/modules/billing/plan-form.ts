import { LOCALES } from "#common/locales.ts";
import { FREE_PLAN_ID } from "#common/plans.ts";
import { planSchema, type PlanDefinition } from "./plan-schema.ts";
import type { PlanView } from "./list-plans.ts";

/** Prices written `AMOUNT:CURRENCY` (minor units, as packs' are), each currency once: `1500:usd 1400:eur`. */
export function pricesFrom(values: string[]): { prices: Record<string, number> } | { wrong: string } {
  const out: Record<string, number> = {};
  for (const value of values) {
    const match = /^(\d{1,9}):([a-zA-Z]{3})$/.exec(value);
    if (!match) return { wrong: value };
    const currency = match[2]!.toLowerCase();
    if (currency in out) return { wrong: value };
    out[currency] = Number(match[1]);
  }
  return { prices: out };
}

/** The console's plan form, each field as typed (what the page shows again after a refusal). */
export type PlanFormValues = Record<string, string>;

/** A refusal of the form: the field to mark, and the `admin` namespace's message. */
export interface PlanFormError {
  field: string;
  error: string;
}

const words = (value: string) => value.split(/[\s,]+/).filter(Boolean);
const whole = (value: string) => (/^\d{1,9}$/.test(value.trim()) ? Number(value.trim()) : Number.NaN);

/** The form's fields as a plan's current definition shows them. */
export function planFormValues(p: PlanView | PlanDefinition): PlanFormValues {
  const prices = (list: Record<string, number>) =>
    Object.entries(list)
      .map(([currency, amount]) => `${amount}:${currency}`)
      .join(" ");
  return {
    id: p.id,
    name: p.name,
    monthly: prices(p.monthly),
    yearly: prices(p.yearly),
    credits: String(p.credits),
    rollover: String(p.rollover),
    trialDays: String(p.trialDays),
    position: String(p.position),
    models: p.unlocks.models.join(", "),
    concurrentJobs: p.unlocks.concurrentJobs === null ? "" : String(p.unlocks.concurrentJobs),
    ...(p.unlocks.privateResults ? { privateResults: "on" } : {}),
    ...(p.unlocks.noLabel ? { noLabel: "on" } : {}),
    ...(p.unlocks.priority ? { priority: "on" } : {}),
    ...(p.unlocks.api ? { api: "on" } : {}),
    ...Object.fromEntries(Object.entries(p.names).map(([l, v]) => [`names.${l}`, v ?? ""])),
    ...Object.fromEntries(Object.entries(p.description).map(([l, v]) => [`description.${l}`, v ?? ""])),
  };
}

/** The field names the form posts (the rest of a request is ignored). */
export const PLAN_FORM_FIELDS = [
  "id",
  "name",
  "monthly",
  "yearly",
  "credits",
  "rollover",
  "trialDays",
  "position",
  "models",
  "concurrentJobs",
  "privateResults",
  "noLabel",
  "priority",
  "api",
  ...LOCALES.flatMap((l) => [`names.${l}`, `description.${l}`]),
];

/**
 * Reads the console's plan form into a definition checked whole by the plan schema, or says which field is wrong and
 * why. Prices are `AMOUNT:CURRENCY` separated by spaces or commas; an empty "jobs at once" means no limit of the
 * plan's own; a name or description left empty in a language shows the default one there.
 */
export function planFromForm(values: PlanFormValues): PlanDefinition | PlanFormError {
  const monthlyRead = pricesFrom(words(values.monthly ?? ""));
  if ("wrong" in monthlyRead) return { field: "monthly", error: "plans.errors.prices" };
  const yearlyRead = pricesFrom(words(values.yearly ?? ""));
  if ("wrong" in yearlyRead) return { field: "yearly", error: "plans.errors.prices" };
  const monthly = monthlyRead.prices;
  const yearly = yearlyRead.prices;
  const perLocale = (prefix: string) =>
    Object.fromEntries(
      LOCALES.map((l) => [l, (values[`${prefix}.${l}`] ?? "").trim()]).filter(([, v]) => v !== ""),
    ) as PlanDefinition["names"];
  const jobs = (values.concurrentJobs ?? "").trim();
  const candidate = {
    id: (values.id ?? "").trim(),
    name: (values.name ?? "").trim(),
    names: perLocale("names"),
    description: perLocale("description"),
    monthly,
    yearly,
    credits: whole(values.credits ?? ""),
    rollover: whole(values.rollover || "0"),
    trialDays: whole(values.trialDays || "0"),
    position: whole(values.position || "0"),
    unlocks: {
      models: words(values.models ?? ""),
      concurrentJobs: jobs === "" ? null : whole(jobs),
      privateResults: values.privateResults === "on",
      noLabel: values.noLabel === "on",
      priority: values.priority === "on",
      api: values.api === "on",
    },
  };
  const parsed = planSchema.safeParse(candidate);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const [first, second] = issue.path.map(String);
  if (first === "monthly" && issue.code === "custom")
    return {
      field: "monthly",
      error: candidate.id === FREE_PLAN_ID ? "plans.errors.freeUnpriced" : "plans.errors.pricesNeeded",
    };
  if (first === "monthly" || first === "yearly") return { field: first, error: "plans.errors.prices" };
  if (first === "names" || first === "description") return { field: `${first}.${second}`, error: "plans.errors.text" };
  if (first === "unlocks") return { field: second ?? "models", error: `plans.errors.${second ?? "models"}` };
  return { field: first ?? "id", error: `plans.errors.${first ?? "id"}` };
}
