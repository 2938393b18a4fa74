import { requestLocale } from "#server/http/api-error.ts";
import type { Context } from "hono";
import type { z } from "zod";
import { AppError } from "#server/errors.ts";
import type { CatalogModel } from "#config/models.ts";
import type { AspectRatio, GenerationTool } from "#common/generation.ts";
import { generationOfKey, submitGeneration } from "#server/modules/generation/submit-generation.ts";
import type { GenerationView } from "#server/modules/generation/get-generation.ts";
import { jobKeyOf, type RetryEnv } from "./retries.ts";
import { openaiFailure } from "./errors.ts";

/** A request's fields and files, from JSON or a multipart form (where every field is a string). */
export interface Sent {
  fields: Record<string, unknown>;
  files: Map<string, File[]>;
}

export async function readSent(c: Context<RetryEnv>): Promise<Sent> {
  const type = (c.req.header("content-type") ?? "").toLowerCase();
  const files = new Map<string, File[]>();
  if (type.startsWith("multipart/form-data") || type.startsWith("application/x-www-form-urlencoded")) {
    const form = await c.req.formData().catch(() => {
      throw new AppError("bad_request", "the form could not be read", { values: { field: "body" } });
    });
    const fields: Record<string, unknown> = {};
    for (const [name, value] of form) {
      if (typeof value === "string") fields[name] = value;
      else {
        // The SDKs send a list of files as `image[]`.
        const field = name.replace(/\[\]$/, "");
        files.set(field, [...(files.get(field) ?? []), value]);
      }
    }
    return { fields, files };
  }
  const body: unknown = await c.req.json().catch(() => undefined);
  if (!body || typeof body !== "object" || Array.isArray(body))
    throw new AppError("bad_request", "the body must be a JSON object (or a multipart form)", {
      values: { field: "body" },
    });
  return { fields: body as Record<string, unknown>, files };
}

/** Parses fields with a schema; the first problem is a 400 naming its field, as OpenAI names `param`. */
export function parseFields<T extends z.ZodType>(schema: T, fields: unknown): z.output<T> {
  const parsed = schema.safeParse(fields);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue?.path.join(".") || "body";
  throw new AppError("bad_request", `${field}: ${issue?.message ?? "invalid"}`, { values: { field } });
}

/** A refusal of one field's value, as OpenAI words it: 400 `invalid_request_error` with `param`. */
export const fieldError = (field: string, message: string) =>
  new AppError("bad_request", message, { values: { field } });

/** The offered model a request names, or the first one that does what it asks when it names none. */
export function modelFor(c: Context<RetryEnv>, id: string | null | undefined, tool: GenerationTool): CatalogModel {
  const offered = c.var.runtime.models.media();
  if (!id) {
    const first = offered.find((m) => m.tools.includes(tool));
    if (!first) throw new AppError("unknown_model", `No model for ${tool} is offered`);
    return first;
  }
  const model = offered.find((m) => m.id === id);
  if (!model) throw new AppError("unknown_model", `The model '${id}' does not exist`);
  if (!model.tools.includes(tool))
    throw fieldError("model", `The model '${id}' does not do ${tool.replaceAll("-", " ")}`);
  return model;
}

/**
 * The model's aspect ratio nearest to an OpenAI `size` (`1536x1024`, `1024x1792`…): OpenAI's models take a few
 * sizes, Atelier's a few ratios. `auto` (or none) is the model's first ratio.
 */
export function ratioOfSize(model: CatalogModel, size: string | null | undefined, field = "size"): AspectRatio {
  const ratios = model.options.aspectRatios;
  if (!size || size === "auto") return ratios[0]!;
  const match = /^(\d{2,5})x(\d{2,5})$/.exec(size);
  if (!match) throw fieldError(field, `${field}: WIDTHxHEIGHT in pixels, like 1024x1024, or auto`);
  const wanted = Math.log(Number(match[1]) / Number(match[2]));
  const distance = (ratio: AspectRatio) => {
    const [w, h] = ratio.split(":").map(Number);
    return Math.abs(Math.log(w! / h!) - wanted);
  };
  return ratios.reduce((best, ratio) => (distance(ratio) < distance(best) ? ratio : best));
}

/** Queues a generation for the key's owner, keyed by the request's idempotency key so that a retry finds it. */
export async function submitJob(c: Context<RetryEnv>, input: Record<string, unknown>) {
  const { database, env, storage, boss, settings } = c.var.runtime;
  const { id } = await submitGeneration(
    { db: database.db, boss, env, storage, settings, models: c.var.runtime.models },
    {
      user: { id: c.var.apiUserId },
      input,
      source: "api",
      channel: "openai",
      apiKeyId: c.var.apiKeyId,
      locale: requestLocale(c),
      idempotencyKey: jobKeyOf(c.var.retryKey),
    },
  );
  return id;
}

/** The job an earlier attempt of this request started (a retry that runs again after "not finished yet"). */
export const startedJob = (c: Context<RetryEnv>) =>
  generationOfKey({ db: c.var.runtime.database.db, userId: c.var.apiUserId, key: jobKeyOf(c.var.retryKey) });

/**
 * The answer for a job that ended without its result, in OpenAI's envelope: the provider's refusal of the content
 * is 400 `content_policy_violation` (the SDKs do not retry it), a canceled job 400, any other failure 502 (which they
 * retry: a failed job was refunded, so running it again charges once).
 */
export function jobFailure(c: Context<RetryEnv>, view: GenerationView | null): Response {
  const id = view?.id ?? null;
  const body = { atelier: { generation_id: id, status: view?.status ?? "deleted" } };
  if (!view || view.status === "canceled")
    return openaiFailure(
      c,
      400,
      {
        message: "The job was canceled or deleted before it ended.",
        type: "invalid_request_error",
        code: "canceled",
        param: null,
      },
      { body },
    );
  const code = view.error?.code ?? "failed";
  const message = view.error?.message ?? "The job failed. Your credits were returned.";
  if (code === "content_rejected")
    return openaiFailure(
      c,
      400,
      { message, type: "invalid_request_error", code: "content_policy_violation", param: "prompt" },
      { body },
    );
  if (code === "invalid_request")
    return openaiFailure(c, 400, { message, type: "invalid_request_error", code, param: null }, { body });
  return openaiFailure(c, 502, { message, type: "server_error", code, param: null }, { body });
}

/**
 * The answer for a job that has not ended within the wait: 504 with where to follow it. The SDKs retry a 504 on
 * their own, and the retry waits again on the same job; another client re-sends the request with the same
 * `Idempotency-Key`, or follows `/api/v1/generations/{id}`.
 */
export function jobPending(c: Context<RetryEnv>, id: string, waitedSeconds: number): Response {
  c.set("claimedAnswer", { kind: "pending" });
  const poll = `/api/v1/generations/${id}`;
  return openaiFailure(
    c,
    504,
    {
      message: `The job is still running after ${waitedSeconds} s. Retry the same request (with the same Idempotency-Key, if you sent one) to wait for it again, or follow GET ${poll}.`,
      type: "server_error",
      code: "generation_pending",
      param: null,
    },
    {
      headers: { Location: poll, "Retry-After": "1", "x-should-retry": "true" },
      body: { atelier: { generation_id: id, poll_url: poll } },
    },
  );
}
