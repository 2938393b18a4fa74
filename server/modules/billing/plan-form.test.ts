import { describe, expect, it } from "vitest";
import { FREE_UNLOCKS } from "#common/plans.ts";
import { planFormValues, planFromForm, pricesFrom } from "./plan-form.ts";

const FORM = {
  id: "studio",
  name: "Studio",
  monthly: "1900:EUR, 2100:usd",
  yearly: "19000:eur",
  credits: "800",
  rollover: "200",
  trialDays: "7",
  position: "2",
  models: "premium demo-video",
  concurrentJobs: "4",
  priority: "on",
  api: "on",
  "names.de": "Atelier",
  "description.de": "Für jeden Tag",
  "names.fr": "  ",
};

describe("the console's plan form", () => {
  it("reads prices, numbers, unlocks and the names per language into a plan checked whole", () => {
    expect(planFromForm(FORM)).toEqual({
      id: "studio",
      name: "Studio",
      names: { de: "Atelier" },
      description: { de: "Für jeden Tag" },
      monthly: { eur: 1900, usd: 2100 },
      yearly: { eur: 19000 },
      credits: 800,
      rollover: 200,
      trialDays: 7,
      position: 2,
      unlocks: {
        models: ["premium", "demo-video"],
        concurrentJobs: 4,
        privateResults: false,
        noLabel: false,
        priority: true,
        api: true,
      },
    });
  });

  it("shows a plan as the form's fields, and reads them back to the same plan", () => {
    const plan = planFromForm(FORM);
    if ("error" in plan) throw new Error(plan.error);
    expect(planFromForm(planFormValues(plan))).toEqual(plan);
  });

  it("says which field is wrong", () => {
    expect(planFromForm({ ...FORM, monthly: "19 eur" })).toEqual({ field: "monthly", error: "plans.errors.prices" });
    expect(planFromForm({ ...FORM, yearly: "100:eur 200:EUR" })).toMatchObject({ field: "yearly" });
    expect(planFromForm({ ...FORM, monthly: "10:eur" })).toEqual({ field: "monthly", error: "plans.errors.prices" });
    expect(planFromForm({ ...FORM, monthly: "", yearly: "" })).toEqual({
      field: "monthly",
      error: "plans.errors.pricesNeeded",
    });
    expect(planFromForm({ ...FORM, id: "free", monthly: "", yearly: "", trialDays: "3" })).toEqual({
      field: "monthly",
      error: "plans.errors.freeUnpriced",
    });
    expect(planFromForm({ ...FORM, id: "Studio Pro" })).toEqual({ field: "id", error: "plans.errors.id" });
    expect(planFromForm({ ...FORM, credits: "-5" })).toEqual({ field: "credits", error: "plans.errors.credits" });
    expect(planFromForm({ ...FORM, concurrentJobs: "0" })).toEqual({
      field: "concurrentJobs",
      error: "plans.errors.concurrentJobs",
    });
    expect(planFromForm({ ...FORM, "description.ja": "x".repeat(501) })).toEqual({
      field: "description.ja",
      error: "plans.errors.text",
    });
  });

  it("leaves the plan's own job limit empty as the site's, and the free plan unpriced", () => {
    const free = planFromForm({ id: "free", name: "Free", credits: "0", api: "on" });
    expect(free).toMatchObject({ monthly: {}, yearly: {}, unlocks: { ...FREE_UNLOCKS, concurrentJobs: null } });
  });

  it("refuses a currency twice in the command line's prices too", () => {
    expect(pricesFrom(["900:usd", "100:USD"])).toEqual({ wrong: "100:USD" });
    expect(pricesFrom(["900:usd"])).toEqual({ prices: { usd: 900 } });
  });
});
