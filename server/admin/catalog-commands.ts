import { assign, assignments } from "#server/admin/assignments.ts";
import { readFile } from "node:fs/promises";
import { basename, resolve } from "node:path";
import { parseArgs } from "node:util";
import { CLI_ACTOR } from "#server/modules/audit/record-admin-action.ts";
import {
  addModel,
  CatalogRefusal,
  changeModel,
  exportCatalog,
  importCatalog,
  parseCatalogFile,
  removeModel,
} from "#server/modules/catalog/edit-models.ts";
import {
  addConnection,
  changeConnection,
  recordConnectionCheck,
  removeConnection,
} from "#server/modules/catalog/edit-connections.ts";
import type { CatalogEntry } from "#server/modules/catalog/catalog.ts";
import { catalogIdFor, describeModel, proposeDefinition } from "#server/modules/catalog/describe-model.ts";
import { DescribeRefusal, type ModelDescription } from "#server/modules/catalog/model-description.ts";
import { notOfferedText, whyNotOffered } from "#server/modules/generation/offer-readiness.ts";
import { replaceWorkflow, WorkflowVersionRefusal } from "#server/modules/catalog/replace-workflow.ts";
import { DESCRIBE_TIMEOUT_MS } from "#server/providers/shared.ts";
import { latestModelChecks, runModelCheck, startModelCheck } from "#server/modules/generation/model-checks.ts";
import pino from "pino";
import { CATALOG_ID, type ModelDefinition } from "#server/modules/catalog/model-definition.ts";
import { checkConnection, isProviderId, providerDefinition } from "#server/providers/registry.ts";
import type { Capability } from "#server/providers/definition.ts";
import { IMAGE_ASPECT_RATIOS, VIDEO_ASPECT_RATIOS, VIDEO_DURATIONS, VIDEO_STYLES } from "#common/generation.ts";
import { GENERATION_TOOLS, type GenerationTool } from "#common/tools.ts";
import { describePrice } from "#common/model-parameters.ts";
import {
  ok,
  refused,
  refusedWithUsage as fail,
  type AdminCommand,
  type AdminContext,
  type CatalogAccess,
} from "#server/admin/output.ts";

async function catalogOf(ctx: AdminContext): Promise<CatalogAccess> {
  if (!ctx.catalog) throw new Error("this command needs the catalog");
  return ctx.catalog();
}

/** Runs a change, turning a refusal into its one line. */
/** Why a model may not be switched on yet (`whyNotOffered`), as the command line says it; null when it may. */
async function offerRefusal(
  ctx: AdminContext,
  models: CatalogAccess["models"],
  definition: ModelDefinition,
  id: string,
): Promise<string | null> {
  const why = await whyNotOffered({ db: await ctx.db(), connections: models, definition, id });
  return why ? `${notOfferedText(id, why)}\n` : null;
}

/** Runs a test of each of a model's providers here and now, as the console's test button queues it. */
async function testModel(
  db: Awaited<ReturnType<AdminContext["db"]>>,
  models: CatalogAccess["models"],
  id: string,
): Promise<{ refused: "noProvider" | "running" } | { lines: string[]; works: boolean }> {
  const started = await startModelCheck({ db, models, modelId: id, actor: CLI_ACTOR });
  if ("refused" in started) return started;
  const logger = pino({ level: "silent" });
  for (const checkId of started.checkIds) await runModelCheck({ db, models, logger }, { checkId });
  const results = (await latestModelChecks({ db, models })).filter((c) => c.modelId === id);
  const lines = results.map(
    (c) =>
      `${c.provider} (${models.anyMedia(id)?.bindings[c.binding]?.model ?? "?"}): ${
        c.status === "succeeded" ? `works, ${((c.durationMs ?? 0) / 1000).toFixed(1)} s` : `${c.errorCode}: ${c.detail}`
      }`,
  );
  return { lines, works: results.length > 0 && results.every((c) => c.status === "succeeded") };
}

async function refusing(work: () => Promise<ReturnType<typeof ok>>) {
  try {
    return await work();
  } catch (error) {
    if (error instanceof CatalogRefusal) return refused(`${error.message}\n`);
    throw error;
  }
}

type Parsed = { values: Record<string, string | boolean | string[] | undefined>; positionals: string[] };

const parse = (
  args: string[],
  options: NonNullable<NonNullable<Parameters<typeof parseArgs>[0]>["options"]>,
): Parsed | { error: string } => {
  try {
    const { values, positionals } = parseArgs({ args, options, allowPositionals: true, strict: true });
    return { values: values as Parsed["values"], positionals };
  } catch (error) {
    return { error: (error as Error).message };
  }
};

/** A model as `models list --json` prints it. */
function listed(e: CatalogEntry) {
  const d = e.definition;
  return {
    id: e.id,
    kind: d.kind,
    name: d.name,
    source: e.source,
    enabled: d.enabled,
    visibility: d.visibility,
    offered: e.state === "on",
    state: e.state,
    tools: d.kind === "chat" ? ["chat"] : d.tools,
    price: d.price,
    bindings: d.bindings,
    connections: e.resolved.map((b) => (b as { connection?: string }).connection),
  };
}

const STATES: Record<CatalogEntry["state"], string> = {
  on: "offered",
  off: "disabled",
  configOff: "disabled by DISABLED_MODELS",
  noProvider: "no connection",
};

function priceText(d: ModelDefinition): string {
  if (d.kind === "chat") return `${d.price.inputPerMillion}/${d.price.outputPerMillion} per M tokens`;
  return describePrice(d.price);
}

/** `image`, `video` or `second`: the unit of `models add --unit`. */
const UNITS = { image: "image", video: "video", second: "videoSecond" } as const;

/** A catalog id from a provider's model id: its last parts, lower-cased, other characters as dashes. */
export function idFromProviderModel(model: string): string {
  const parts = model.split("/");
  const meaningful = parts.length > 1 ? parts.slice(1).join("-") : model;
  return meaningful
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, "-")
    .replace(/^[-._]+|[-._]+$/g, "")
    .slice(0, 100);
}

/** A new model with the common parameters, as `models add` makes it (the console's "add" does the same). */
export function newModelDefinition(o: {
  kind: "image" | "video" | "chat";
  provider: string;
  model: string;
  name?: string;
  credits: number;
  outputCredits?: number;
  unit?: "image" | "video" | "videoSecond";
  tools?: GenerationTool[];
  connection?: string;
  enabled: boolean;
}): Record<string, unknown> {
  const binding = { provider: o.provider, model: o.model, ...(o.connection ? { connection: o.connection } : {}) };
  const common = { name: o.name ?? o.model, enabled: o.enabled, visibility: "everyone", bindings: [binding] };
  if (o.kind === "chat")
    return {
      kind: "chat",
      ...common,
      price: { inputPerMillion: o.credits, outputPerMillion: o.outputCredits ?? o.credits },
      contextTokens: 32_000,
      maxOutputTokens: 4_096,
      vision: false,
      tools: false,
    };
  if (o.kind === "video")
    return {
      kind: "video",
      ...common,
      tools: ["text-to-video"],
      price: { unit: o.unit ?? "video", credits: o.credits },
      options: {
        aspectRatios: [...VIDEO_ASPECT_RATIOS],
        maxCount: 1,
        durations: [...VIDEO_DURATIONS],
        styles: [...VIDEO_STYLES],
        negativePrompt: false,
        seed: false,
        strength: false,
      },
      expectedSeconds: 120,
      timeoutSeconds: 900,
    };
  const tools = o.tools ?? ["text-to-image"];
  return {
    kind: "image",
    ...common,
    tools,
    price: { unit: "image", credits: o.credits },
    options: {
      aspectRatios: [...IMAGE_ASPECT_RATIOS],
      maxCount: 4,
      negativePrompt: false,
      seed: true,
      strength: tools.includes("image-to-image"),
    },
    expectedSeconds: 20,
    timeoutSeconds: 300,
  };
}

/** What reading a schema found, as lines for the operator: the tools, where each common setting goes, the rest. */
function describeMapping(d: ModelDescription): string {
  const m = d.mapping;
  const where: string[] = [];
  const put = (name: string, field: string | undefined, extra = "") => {
    if (field) where.push(`${name} → ${field}${extra}`);
  };
  put("prompt", m.prompt);
  put("negative prompt", m.negativePrompt);
  put("seed", m.seed);
  put("count", m.count, d.options.maxCount > 1 ? ` (at most ${d.options.maxCount})` : "");
  if (m.aspectRatio)
    put(
      "aspect ratio",
      m.aspectRatio.field,
      m.aspectRatio.values
        ? ` (${Object.entries(m.aspectRatio.values)
            .map(([r, v]) => `${r} as ${v}`)
            .join(", ")})`
        : m.aspectRatio.sizeObject
          ? " (width and height)"
          : "",
    );
  if (m.width && m.height) where.push(`aspect ratio → ${m.width} × ${m.height}`);
  put("input image", m.inputImage?.field);
  put("mask", m.mask);
  put("end image", m.endImage);
  put("scale", m.scale);
  put("strength", m.strength);
  put("duration", m.duration?.field, d.options.durations ? ` (${d.options.durations.join(", ")} s)` : "");
  put("resolution", m.resolution, d.options.resolutions ? ` (${d.options.resolutions.join(", ")})` : "");
  put("audio", m.audio);
  const lines = [
    `Read ${d.provider}:${d.providerModel}${d.fromSchema ? "'s schema" : ""}: ${d.kind === "image" ? "an image" : "a video"} model, ${d.tools.join(", ") || "no tool yet"}.`,
    ...(where.length > 0 ? [`  mapped: ${where.join("; ")}`] : []),
    ...(d.parameters.length > 0
      ? [
          `  advanced: ${d.parameters.map((p) => `${p.name} (${p.type}${p.default !== undefined ? `, default ${String(p.default)}` : ""})`).join(", ")}`,
        ]
      : []),
    ...(d.unmet.length > 0 ? [`  cannot be offered yet: ${d.unmet.join("; ")}`] : []),
    ...(d.cost ? [`  provider's price: ${d.cost.unitPrice} ${d.cost.currency} per ${d.cost.unit}`] : []),
    ...(d.workflow
      ? [
          `  workflow version ${d.workflow.version}: ${d.workflow.slots
            .filter((s) => s.role !== "setting")
            .map((s) => `${s.role} → ${s.targets.map(([node, input]) => `${node}.${input}`).join(", ")}`)
            .join("; ")}`,
          `  fixed at the workflow's values: ${
            d.workflow.slots
              .filter((s) => s.role === "setting")
              .map((s) => `${s.name}=${String(s.value)}`)
              .join(", ") || "nothing"
          }`,
        ]
      : []),
    ...(d.notes ?? []).map((note) => `  note: ${note}`),
  ];
  return `${lines.join("\n")}\n`;
}

const MODELS_USAGE = `  models list [--json]     every model of the catalog, built-in and added, offered or not
  models add <provider>:<provider-model-id> --credits <n> [--unit image|video|second] [--kind image|video|chat]
             [--id <id>] [--name <name>] [--tools text-to-image,image-to-image] [--connection <id>]
             [--output-credits <n>] [--enable] [--no-schema]
                           add a model (disabled unless --enable); fal, Replicate and OpenAI-compatible models
                           are read from the provider's schema (their settings, limits and tools) unless
                           --no-schema; chat prices are per million tokens
  models add comfyui:<workflow.json> --connection <id> --credits <n> --id <id> [--enable]
                           a ComfyUI workflow (API format, or the UI format read with a server's node list):
                           its prompt, negative prompt, seed and size are the user's, the rest stays as saved;
                           --enable runs it once on the pool and offers it when that test passes
  models set <id> <key=value>…  change fields (price.credits=4 price.multipliers.resolution.1080p=2
                           price.minimum=5 enabled=false options.seed=true names.de=…)
  models workflow <id> <workflow.json>
                           a new version of a workflow model (queued and running jobs keep theirs)
  models test <id>         generate once with each of its providers now (a real, paid call) and say if it works
  models enable|disable <id>    offer it, or stop offering it everywhere
  models remove <id>       remove an added model (a built-in one goes back to its built-in definition)
  models export            print the whole catalog as JSON
                           (npm run --silent admin -- models export > catalog.json)
  models import <file>     apply a catalog file: checked whole, applied in one transaction`;

export const modelsCommand: AdminCommand = {
  usage: MODELS_USAGE,
  async run(ctx, args) {
    const [sub, ...rest] = args;
    switch (sub) {
      case "list": {
        const parsed = parse(rest, { json: { type: "boolean" } });
        if ("error" in parsed) return fail(parsed.error);
        const { models } = await catalogOf(ctx);
        const entries = models.entries();
        if (parsed.values.json) return ok(`${JSON.stringify(entries.map(listed), null, 2)}\n`);
        const rows = entries.map((e) => [
          e.id,
          e.definition.kind,
          priceText(e.definition),
          STATES[e.state],
          e.source === "builtin"
            ? e.changed.length
              ? `built-in, changed: ${e.changed.join(", ")}`
              : "built-in"
            : "added",
          e.definition.bindings.map((b) => `${b.connection ?? b.provider}:${b.model}`).join(", "),
        ]);
        const widths = [0, 1, 2, 3, 4].map((i) => Math.max(...rows.map((r) => r[i]!.length)));
        return ok(`${rows.map((r) => r.map((c, i) => (i < 5 ? c.padEnd(widths[i]!) : c)).join("  ")).join("\n")}\n`);
      }
      case "add": {
        const parsed = parse(rest, {
          credits: { type: "string" },
          "output-credits": { type: "string" },
          unit: { type: "string" },
          kind: { type: "string" },
          id: { type: "string" },
          name: { type: "string" },
          tools: { type: "string" },
          connection: { type: "string" },
          enable: { type: "boolean" },
          "no-schema": { type: "boolean" },
        });
        if ("error" in parsed) return fail(parsed.error);
        const { values, positionals } = parsed;
        const target = positionals[0];
        if (positionals.length !== 1 || !target)
          return fail("Usage: models add <provider>:<provider-model-id> --credits <n>");
        const colon = target.indexOf(":");
        const provider = colon > 0 ? target.slice(0, colon) : "";
        let model = target.slice(colon + 1).trim();
        if (!isProviderId(provider) || !model)
          return fail(
            `Name the model as <provider>:<provider-model-id>, the provider one of Atelier's (such as fal, replicate, openai, google).`,
          );
        // A provider whose models are files the operator made (a ComfyUI workflow): the file, named by its base name.
        let document: string | undefined;
        if (providerDefinition(provider).documentModels) {
          try {
            document = await readFile(resolve(ctx.cwd, model), "utf8");
          } catch (error) {
            return refused(
              `Cannot read ${model}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}\n`,
            );
          }
          model = basename(model).replace(/\.json$/i, "");
        }
        const whole = (v: unknown) =>
          typeof v === "string" && /^\d+$/.test(v) && Number.isSafeInteger(Number(v)) ? Number(v) : null;
        const credits = whole(values.credits);
        if (credits === null) return fail("--credits must be a whole number (the price per unit, in credits).");
        const outputCredits = values["output-credits"] === undefined ? undefined : whole(values["output-credits"]);
        if (outputCredits === null) return fail("--output-credits must be a whole number.");
        const unitName = values.unit as string | undefined;
        if (unitName !== undefined && !Object.hasOwn(UNITS, unitName)) return fail("--unit is image, video or second.");
        const unit = unitName === undefined ? undefined : UNITS[unitName as keyof typeof UNITS];
        const kindGiven = values.kind as string | undefined;
        if (kindGiven !== undefined && !["image", "video", "chat"].includes(kindGiven))
          return fail("--kind is image, video or chat.");
        const tools = (values.tools as string | undefined)?.split(",").map((t) => t.trim());
        if (tools && !tools.every((t) => (GENERATION_TOOLS as readonly string[]).includes(t)))
          return fail(`--tools takes ${GENERATION_TOOLS.join(", ")}.`);
        const given = values.id as string | undefined;
        if (given !== undefined && !CATALOG_ID.test(given))
          return fail(`${given} is not a model id; give one with --id.`);
        const { env, models } = await catalogOf(ctx);
        // As the console proposes it: from the provider's id, with -2, -3… when the catalog already has that one.
        let id: string;
        try {
          id =
            given ??
            catalogIdFor(
              model,
              models.entries().map((e) => e.id),
            );
        } catch {
          return fail(`${idFromProviderModel(model) || model} is not a model id; give one with --id.`);
        }
        const connection = values.connection as string | undefined;
        if (
          connection !== undefined &&
          !models.connections().some((c) => c.id === connection && c.provider === provider)
        )
          return refused(`No ${provider} connection ${connection} (npm run admin -- connections list).\n`);

        // A provider that publishes its models' schemas: the model as the console would propose it.
        const readsSchema =
          providerDefinition(provider).describe !== undefined && kindGiven !== "chat" && !values["no-schema"];
        let definition: Record<string, unknown>;
        let mapped = "";
        // A workflow is offered once a test run of it passed: added switched off, tested, then switched on.
        let testThenEnable = false;
        if (readsSchema) {
          let description: ModelDescription;
          try {
            description = await describeModel(
              {
                connections: models,
                provider,
                connection,
                model,
                ...(kindGiven ? { kind: kindGiven as "image" | "video" } : {}),
                ...(document !== undefined && { document }),
              },
              AbortSignal.timeout(DESCRIBE_TIMEOUT_MS + 5_000),
            );
          } catch (error) {
            if (!(error instanceof DescribeRefusal)) throw error;
            return refused(
              `Could not read ${provider}:${model}'s schema: ${error.message}.\n` +
                `Add it with the common settings only with --no-schema.\n`,
            );
          }
          if (unit === "image" && description.kind === "video") return fail("A video model is not priced per image.");
          if (unit !== undefined && unit !== "image" && description.kind === "image")
            return fail(`An image model is not priced per ${unitName}.`);
          if (description.unmet.length > 0 && values.enable)
            return refused(`${provider}:${model} cannot be offered yet: ${description.unmet.join("; ")}.\n`);
          testThenEnable = Boolean(values.enable && description.workflow);
          const proposed = proposeDefinition(description, {
            credits,
            unit,
            id,
            name: values.name as string | undefined,
            enable: Boolean(values.enable) && !testThenEnable,
            connection,
          }).definition as Record<string, unknown>;
          if (tools) proposed.tools = tools;
          definition = proposed;
          mapped = describeMapping(description);
        } else {
          const kindName = kindGiven ?? (unit === undefined || unit === "image" ? "image" : "video");
          const kind = kindName as "image" | "video" | "chat";
          if ((kind === "image" && unit !== undefined && unit !== "image") || (kind === "video" && unit === "image"))
            return fail(`A ${kind} model is not priced per ${unitName}.`);
          if (!providerDefinition(provider).capabilities.includes(kind as Capability))
            return refused(`${provider} has no ${kind} models.\n`);
          definition = newModelDefinition({
            kind,
            provider,
            model,
            name: values.name as string | undefined,
            credits,
            outputCredits,
            unit,
            tools: tools as GenerationTool[] | undefined,
            connection,
            enabled: Boolean(values.enable),
          });
        }
        return refusing(async () => {
          const db = await ctx.db();
          let added = await addModel({ db, env, id, actor: CLI_ACTOR, definition });
          await models.refresh();
          if (testThenEnable) {
            const outcome = await testModel(db, models, added.id);
            const tested = "refused" in outcome ? { lines: ["no connection can serve it"] } : outcome;
            const why = await whyNotOffered({
              db,
              connections: models,
              definition: models.entry(added.id)!.definition,
              id: added.id,
            });
            if (why)
              return {
                stdout: `${added.id}\n`,
                stderr: `${mapped}Added ${added.id} (${added.name}), ${priceText(added)}, switched off: ${tested.lines.join("; ")}.\n${notOfferedText(added.id, why)}\n`,
                code: 1,
              };
            await changeModel({ db, env, id: added.id, actor: CLI_ACTOR, change: (c) => ({ ...c, enabled: true }) });
            await models.refresh();
            added = { ...added, enabled: true };
            mapped += `Tested: ${tested.lines.join("; ")}.\n`;
          }
          const entry = models.entry(id);
          const offered = entry?.state === "on";
          return ok(
            `${added.id}\n`,
            `${mapped}Added ${added.id} (${added.name}), ${priceText(added)}, ${
              offered
                ? "offered now"
                : !added.enabled
                  ? "disabled: offer it with npm run admin -- models enable " + added.id
                  : `not offered: no ${provider} connection can serve it`
            }.\n`,
          );
        });
      }
      case "set": {
        const [id, ...pairs] = rest;
        if (!id || pairs.length === 0) return fail("Usage: models set <id> <key=value>…");
        const changes = assignments(pairs);
        if (typeof changes === "string") return fail(changes);
        if (changes.some((c) => c.path[0] === "id" || c.path[0] === "kind"))
          return refused("A model's id and kind stay; add a new model instead.\n");
        const { env, models } = await catalogOf(ctx);
        const entry = models.entry(id);
        if (
          entry &&
          !entry.definition.enabled &&
          changes.some((c) => c.path.join(".") === "enabled" && c.value === true)
        ) {
          const refusal = await offerRefusal(ctx, models, entry.definition, id);
          if (refusal) return refused(refusal);
        }
        return refusing(async () => {
          const changed = await changeModel({
            db: await ctx.db(),
            env,
            id,
            actor: CLI_ACTOR,
            change: (current) => {
              const next = current as unknown as Record<string, unknown>;
              for (const c of changes) assign(next, c.path, c.value);
              return next;
            },
          });
          await models.refresh();
          return ok("", changed ? `${id} changed.\n` : `${id} already had these values.\n`);
        });
      }
      case "workflow": {
        const [id, file, ...extra] = rest;
        if (!id || !file || extra.length > 0) return fail("Usage: models workflow <id> <workflow.json>");
        const { env, models } = await catalogOf(ctx);
        const entry = models.entry(id);
        if (!entry) return refused(`No model ${id} (npm run admin -- models list).\n`);
        const definition = entry.definition;
        const bound = definition.kind === "chat" ? undefined : definition.bindings.find((b) => b.workflow);
        if (!bound?.workflow) return refused(`${id} runs no workflow; add one with models add <provider>:<file>.\n`);
        let document: string;
        try {
          document = await readFile(resolve(ctx.cwd, file), "utf8");
        } catch (error) {
          return refused(`Cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}\n`);
        }
        try {
          const { version, description } = await replaceWorkflow(
            { db: await ctx.db(), env, models, id, actor: CLI_ACTOR, fileName: file, document },
            AbortSignal.timeout(DESCRIBE_TIMEOUT_MS + 5_000),
          );
          return ok(
            "",
            `${describeMapping(description)}${id} runs version ${version} of its workflow now; jobs already queued or running keep theirs.\n`,
          );
        } catch (error) {
          if (error instanceof DescribeRefusal) return refused(`Could not read ${file}: ${error.message}.\n`);
          if (error instanceof WorkflowVersionRefusal) {
            if (error.code === "same") return ok("", `${id} runs this workflow already (version ${error.detail}).\n`);
            if (error.code === "kind")
              return refused(`${file} makes ${error.detail}s; ${id} makes ${definition.kind}s.\n`);
          }
          if (error instanceof CatalogRefusal) return refused(`${error.message}\n`);
          throw error;
        }
      }
      case "test": {
        const [id, ...extra] = rest;
        if (!id || extra.length > 0) return fail("Usage: models test <id>");
        const { models } = await catalogOf(ctx);
        if (!models.entry(id)) return refused(`No model ${id} (npm run admin -- models list).\n`);
        if (!models.anyMedia(id))
          return refused(`${id} cannot be tested: it is a chat model, or no connection can serve it.\n`);
        const db = await ctx.db();
        const tested = await testModel(db, models, id);
        if ("refused" in tested)
          return refused(
            tested.refused === "running"
              ? `A test of ${id} is still running.\n`
              : `${id} cannot be tested: no connection can serve it.\n`,
          );
        const { lines, works } = tested;
        return works ? ok(`${lines.join("\n")}\n`) : { stdout: `${lines.join("\n")}\n`, stderr: "", code: 1 };
      }
      case "enable":
      case "disable": {
        const [id, ...extra] = rest;
        if (!id || extra.length > 0) return fail(`Usage: models ${sub} <id>`);
        const { env, models } = await catalogOf(ctx);
        const entry = models.entry(id);
        if (sub === "enable" && entry && !entry.definition.enabled) {
          // A workflow's servers must have what it needs, and it must have passed a test, before anyone is offered it.
          const refusal = await offerRefusal(ctx, models, entry.definition, id);
          if (refusal) return refused(refusal);
        }
        return refusing(async () => {
          const changed = await changeModel({
            db: await ctx.db(),
            env,
            id,
            actor: CLI_ACTOR,
            change: (current) => ({ ...current, enabled: sub === "enable" }),
          });
          await models.refresh();
          const state = models.entry(id)?.state;
          return ok(
            "",
            `${id} ${changed ? "is now" : "was already"} ${sub === "enable" ? "enabled" : "disabled"}${
              sub === "enable" && state !== "on" && state ? ` (not offered: ${STATES[state]})` : ""
            }.\n`,
          );
        });
      }
      case "remove": {
        const [id, ...extra] = rest;
        if (!id || extra.length > 0) return fail("Usage: models remove <id>");
        const { env, models } = await catalogOf(ctx);
        return refusing(async () => {
          const removed = await removeModel({ db: await ctx.db(), env, id, actor: CLI_ACTOR });
          await models.refresh();
          return ok(
            "",
            removed
              ? models.entry(id)
                ? `${id} is back to its built-in definition.\n`
                : `${id} is removed.\n`
              : `${id} has no changes to remove.\n`,
          );
        });
      }
      case "export": {
        if (rest.length > 0) return fail("Usage: models export > catalog.json");
        const { models } = await catalogOf(ctx);
        return ok(`${JSON.stringify(exportCatalog(models.entries()), null, 2)}\n`);
      }
      case "import": {
        const [file, ...extra] = rest;
        if (!file || extra.length > 0) return fail("Usage: models import <file>");
        let text: string;
        try {
          text = await readFile(resolve(ctx.cwd, file), "utf8");
        } catch (error) {
          return refused(`Cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}\n`);
        }
        return refusing(async () => {
          const records = parseCatalogFile(text);
          const { env, models } = await catalogOf(ctx);
          const { changed } = await importCatalog({ db: await ctx.db(), env, records, actor: CLI_ACTOR });
          await models.refresh();
          return ok(
            "",
            changed.length === 0
              ? `The catalog already matches ${file}: nothing changed.\n`
              : `${changed.length} model(s) changed: ${changed.join(", ")}.\n`,
          );
        });
      }
      default:
        return fail(sub ? `Unknown models command: ${sub}` : undefined);
    }
  },
};

const CONNECTIONS_USAGE = `  connections list [--json]  every provider connection: the environment's and those added
  connections add <provider> [--key <key>] [--base-url <url>] [--set <name=value>]… [--name <name>] [--id <id>]
                 [--allow-private-network]
                           add a connection (its key sealed in the database); it serves at once; a base URL on
                           plain http or a private network needs --allow-private-network
  connections add comfyui --name <name> --url <url> [--url <url>]… [--header "<Name>: <value>"]
                           a pool of your own ComfyUI servers (on your network: plain http and private
                           addresses are allowed); the header, sealed, is sent to each of them
  connections test <id>    check its key and address with the provider (nothing is generated)
  connections enable|disable|remove <id>`;

export const connectionsCommand: AdminCommand = {
  usage: CONNECTIONS_USAGE,
  async run(ctx, args) {
    const [sub, ...rest] = args;
    switch (sub) {
      case "list": {
        const parsed = parse(rest, { json: { type: "boolean" } });
        if ("error" in parsed) return fail(parsed.error);
        const { models } = await catalogOf(ctx);
        const rows = models.connections().map((c) => ({
          id: c.id,
          name: c.name,
          provider: c.provider,
          source: c.source === "builtin" ? "environment" : "added",
          enabled: c.enabled,
          serves: c.enabled && !c.problem,
          problem: c.problem ?? null,
          // The last four characters of each key, never more.
          keys: c.secretHints,
          settings: Object.fromEntries(
            Object.entries(c.settings ?? {}).filter(
              ([key]) => !(providerDefinition(c.provider).secrets as readonly string[]).includes(key),
            ),
          ),
          check: c.check ?? null,
        }));
        if (parsed.values.json) return ok(`${JSON.stringify(rows, null, 2)}\n`);
        const lines = rows
          .filter((r) => r.source === "added" || r.serves)
          .map((r) =>
            [
              r.id.padEnd(20),
              r.provider.padEnd(18),
              r.source.padEnd(12),
              !r.enabled
                ? "disabled"
                : r.problem === "unreadable"
                  ? "key unreadable"
                  : r.problem
                    ? "incomplete"
                    : "serves",
              Object.entries(r.keys)
                .map(([k, v]) => `${k} …${v}`)
                .join(" "),
              r.check ? `tested ${r.check.ok ? "ok" : `failing (${r.check.message ?? ""})`} ${r.check.at}` : "",
            ]
              .join("  ")
              .trimEnd(),
          );
        return ok(`${lines.join("\n")}\n`);
      }
      case "add": {
        const parsed = parse(rest, {
          key: { type: "string" },
          "base-url": { type: "string" },
          set: { type: "string", multiple: true },
          name: { type: "string" },
          id: { type: "string" },
          "allow-private-network": { type: "boolean" },
          url: { type: "string", multiple: true },
          header: { type: "string" },
        });
        if ("error" in parsed) return fail(parsed.error);
        const { values, positionals } = parsed;
        const provider = positionals[0];
        if (positionals.length !== 1 || !provider) return fail("Usage: connections add <provider> --key <key>");
        if (!isProviderId(provider)) return refused(`No provider ${provider}.\n`);
        const settings: Record<string, unknown> = {};
        if (values.key !== undefined) settings[providerDefinition(provider).secrets[0] ?? "apiKey"] = values.key;
        if (values["base-url"] !== undefined) settings.baseURL = values["base-url"];
        // A pool of servers (ComfyUI): each --url one server, the header sent to every one of them.
        const urls = (values.url as string[] | undefined) ?? [];
        if (urls.length > 0) {
          settings.servers = urls.map((url) => ({ url }));
          if (values.header !== undefined)
            settings.headers = Object.fromEntries(urls.map((url) => [url, values.header as string]));
        } else if (values.header !== undefined)
          return fail("--header goes with the --url of the servers it is sent to.");
        const more = assignments((values.set as string[] | undefined) ?? []);
        if (typeof more === "string") return fail(more);
        for (const m of more) assign(settings, m.path, m.value);
        const { models, secrets } = await catalogOf(ctx);
        return refusing(async () => {
          const added = await addConnection({
            db: await ctx.db(),
            box: secrets,
            provider,
            id: values.id as string | undefined,
            input: {
              name: values.name as string | undefined,
              settings,
              allowPrivateNetwork: Boolean(values["allow-private-network"]),
            },
            actor: CLI_ACTOR,
          });
          await models.refresh();
          return ok(`${added.id}\n`, `Added the ${provider} connection ${added.id}; it serves now.\n`);
        });
      }
      case "test": {
        const [id, ...extra] = rest;
        if (!id || extra.length > 0) return fail("Usage: connections test <id>");
        const { models } = await catalogOf(ctx);
        const connection = models.connections().find((c) => c.id === id);
        if (!connection) return refused(`No connection ${id}.\n`);
        if (!connection.settings) return refused(`${id}: its key cannot be opened with this installation's key.\n`);
        const outcome = await checkConnection(connection.provider, connection.settings);
        if (connection.source === "custom")
          await recordConnectionCheck(await ctx.db(), id, {
            ok: outcome.ok,
            message: outcome.ok ? (outcome.detail ?? null) : `${outcome.code}: ${outcome.detail}`,
          });
        return outcome.ok
          ? ok(`${id}: ok${outcome.detail ? ` (${outcome.detail})` : ""}\n`)
          : refused(`${id}: ${outcome.code}: ${outcome.detail}\n`);
      }
      case "enable":
      case "disable":
      case "remove": {
        const [id, ...extra] = rest;
        if (!id || extra.length > 0) return fail(`Usage: connections ${sub} <id>`);
        const { models, secrets } = await catalogOf(ctx);
        return refusing(async () => {
          const db = await ctx.db();
          const done =
            sub === "remove"
              ? await removeConnection({ db, id, actor: CLI_ACTOR })
              : await changeConnection({
                  db,
                  box: secrets,
                  id,
                  input: { enabled: sub === "enable" },
                  actor: CLI_ACTOR,
                });
          await models.refresh();
          if (sub === "remove" && !done) return refused(`No connection ${id} was added (the environment's stay).\n`);
          return ok(
            "",
            `${id} ${sub === "remove" ? "is removed" : done ? `is now ${sub}d` : `was already ${sub}d`}.\n`,
          );
        });
      }
      default:
        return fail(sub ? `Unknown connections command: ${sub}` : undefined);
    }
  },
};
