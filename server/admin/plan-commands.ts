import { parseArgs } from "node:util";
import { AppError } from "#server/errors.ts";
import { CLI_ACTOR } from "#server/modules/audit/record-admin-action.ts";
import { listPlans, type PlanView } from "#server/modules/billing/list-plans.ts";
import { addPlan, archivePlan, changePlan, newPlan } from "#server/modules/billing/edit-plans.ts";
import { pricesFrom } from "#server/modules/billing/plan-form.ts";
import { assign, assignments } from "#server/admin/assignments.ts";
import { ok, refused, refusedWithUsage as fail, type AdminCommand } from "#server/admin/output.ts";

/** `AMOUNT:CURRENCY` (minor units, as packs' are), each currency once. */
function pricesOf(values: string[] | undefined, flag: string): Record<string, number> | string {
  const prices = pricesFrom(values ?? []);
  if ("prices" in prices) return prices.prices;
  const currency = /^\d{1,9}:([a-zA-Z]{3})$/.exec(prices.wrong)?.[1];
  return currency
    ? `--${flag} names ${currency.toLowerCase()} twice.`
    : `--${flag} must be AMOUNT:CURRENCY in minor units, like 900:usd (got ${prices.wrong}).`;
}

const whole = (value: string | undefined) =>
  value !== undefined && /^\d{1,9}$/.test(value) ? Number(value) : undefined;

const money = (prices: Record<string, number>) =>
  Object.entries(prices)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([currency, amount]) => `${(amount / 100).toFixed(2)} ${currency.toUpperCase()}`)
    .join(", ") || "—";

function describe(p: PlanView): string {
  const unlocks = [
    p.unlocks.models.length > 0 ? `models ${p.unlocks.models.join(",")}` : null,
    p.unlocks.concurrentJobs === null ? null : `${p.unlocks.concurrentJobs} jobs at once`,
    p.unlocks.privateResults ? "private results" : null,
    p.unlocks.noLabel ? "no visible label" : null,
    p.unlocks.priority ? "priority" : null,
    p.unlocks.api ? "API" : "no API",
  ].filter(Boolean);
  return [
    `${p.id}  ${p.name}${p.archivedAt ? "  (archived)" : ""}`,
    `  monthly ${money(p.monthly)}; yearly ${money(p.yearly)}`,
    `  ${p.credits} credits a month${p.rollover > 0 ? `, up to ${p.rollover} roll over` : ""}${p.trialDays > 0 ? `; ${p.trialDays}-day trial` : ""}`,
    `  unlocks: ${unlocks.join("; ")}`,
  ].join("\n");
}

/** `plans list|add|set|archive`: the plans sold by subscription, and the free plan every account is on. */
export const plansCommand: AdminCommand = {
  usage: `  plans list [--json]      the plans (the free one first): prices, credits a month, what each unlocks
  plans add --id ID --name NAME --monthly AMOUNT:CURRENCY [--yearly AMOUNT:CURRENCY] --credits N [--rollover N]
            [--models TAG,…]
                           add a plan; amounts in minor units (900:usd), --monthly and --yearly once per currency
  plans set <id> <key=value>…
                           change fields (credits=500 rollover=100 monthly.eur=900 names.de=Profi
                           unlocks.api=false unlocks.concurrentJobs=4 unlocks.models=["pro"]; empty removes)
  plans archive <id>       sell a plan no more (its subscribers keep it; the free plan stays)`,
  async run(ctx, args) {
    const [command, ...rest] = args;
    try {
      if (command === "list") {
        const json = rest.includes("--json");
        if (rest.some((a) => a !== "--json")) return fail("Usage: plans list [--json]");
        const plans = await listPlans({ db: await ctx.db(), archived: true });
        return ok(json ? `${JSON.stringify(plans, null, 2)}\n` : `${plans.map(describe).join("\n\n")}\n`);
      }
      if (command === "add") {
        let parsed;
        try {
          parsed = parseArgs({
            args: rest,
            options: {
              id: { type: "string" },
              name: { type: "string" },
              monthly: { type: "string", multiple: true },
              yearly: { type: "string", multiple: true },
              credits: { type: "string" },
              rollover: { type: "string" },
              models: { type: "string" },
            },
          });
        } catch (error) {
          return fail((error as Error).message);
        }
        const v = parsed.values;
        if (!v.id || !v.name) return fail("plans add needs --id and --name.");
        if (!v.monthly) return fail("plans add needs --monthly AMOUNT:CURRENCY.");
        const monthly = pricesOf(v.monthly, "monthly");
        const yearly = pricesOf(v.yearly, "yearly");
        if (typeof monthly === "string") return fail(monthly);
        if (typeof yearly === "string") return fail(yearly);
        const credits = whole(v.credits);
        if (credits === undefined) return fail("--credits must be a whole number.");
        const rollover = v.rollover === undefined ? 0 : whole(v.rollover);
        if (rollover === undefined) return fail("--rollover must be a whole number.");
        const models = (v.models ?? "")
          .split(",")
          .map((m) => m.trim())
          .filter(Boolean);
        const added = await addPlan({
          db: await ctx.db(),
          definition: newPlan({
            id: v.id,
            name: v.name,
            monthly,
            yearly,
            credits,
            rollover,
            unlocks: { models },
          }),
          actor: CLI_ACTOR,
        });
        return ok(`Plan ${added.id} added.\n`);
      }
      if (command === "set") {
        const [id, ...pairs] = rest;
        if (!id || pairs.length === 0) return fail("Usage: plans set <id> <key=value>…");
        const changes = assignments(pairs);
        if (typeof changes === "string") return fail(changes);
        const changed = await changePlan({
          db: await ctx.db(),
          id,
          actor: CLI_ACTOR,
          change: (current) => {
            const next = current as unknown as Record<string, unknown>;
            for (const { path, value } of changes) assign(next, path, value);
            return next;
          },
        });
        return ok(changed ? `Plan ${id} changed.\n` : `Plan ${id} unchanged.\n`);
      }
      if (command === "archive") {
        const [id, ...extra] = rest;
        if (!id || extra.length > 0) return fail("Usage: plans archive <id>");
        const archived = await archivePlan({ db: await ctx.db(), id, actor: CLI_ACTOR });
        return ok(archived ? `Plan ${id} archived: it is sold no more.\n` : `Plan ${id} was archived already.\n`);
      }
      return fail("Unknown plans command.");
    } catch (error) {
      if (error instanceof AppError) return refused(`${error.message}\n`);
      throw error;
    }
  },
};
