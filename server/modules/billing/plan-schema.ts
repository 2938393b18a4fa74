import { z } from "zod";
import { LOCALES } from "#common/locales.ts";
import { FREE_PLAN_ID } from "#common/plans.ts";

const perLocale = z.partialRecord(z.enum(LOCALES), z.string().trim().min(1).max(500));
/** Per currency (three letters, lower case): an amount in its minor units, as packs' are. */
const prices = z
  .record(z.string().regex(/^[a-z]{3}$/, "a currency is three letters"), z.number().int().min(50).max(100_000_000))
  .refine((p) => Object.keys(p).length <= 12, "at most 12 currencies");

export const planUnlocksSchema = z.strictObject({
  models: z.array(z.string().trim().min(1).max(100)).max(50),
  concurrentJobs: z.number().int().min(1).max(100).nullable(),
  privateResults: z.boolean(),
  noLabel: z.boolean(),
  priority: z.boolean(),
  api: z.boolean(),
});

/** A plan as an operator defines it; the free plan has no prices and no trial. */
export const planSchema = z
  .strictObject({
    id: z.string().regex(/^[a-z0-9-]{1,32}$/, "lower-case letters, digits and dashes, at most 32"),
    name: z.string().trim().min(1).max(60),
    names: perLocale,
    description: perLocale,
    monthly: prices,
    yearly: prices,
    credits: z.number().int().min(0).max(100_000_000),
    rollover: z.number().int().min(0).max(100_000_000),
    unlocks: planUnlocksSchema,
    trialDays: z.number().int().min(0).max(365),
    position: z.number().int().min(0).max(100_000),
  })
  .superRefine((p, ctx) => {
    const priced = Object.keys(p.monthly).length + Object.keys(p.yearly).length > 0;
    if (p.id === FREE_PLAN_ID && (priced || p.trialDays > 0))
      ctx.addIssue({ code: "custom", path: ["monthly"], message: "the free plan has no price and no trial" });
    if (p.id !== FREE_PLAN_ID && !priced)
      ctx.addIssue({ code: "custom", path: ["monthly"], message: "a plan needs a monthly or yearly price" });
  });

export type PlanDefinition = z.output<typeof planSchema>;
