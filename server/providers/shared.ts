import type { Experimental_VideoModelV4 as VideoModelV4, JSONValue } from "@ai-sdk/provider";
import type { ConnectionCheck } from "#server/providers/definition.ts";
import { DescribeRefusal } from "#server/modules/catalog/model-description.ts";
import type { ImageRequest, ProviderOptions, VideoRequest } from "#server/providers/generate.ts";

/** Lays the engine's defaults, then the catalog's options, then the request's values (unset ones left out). */
export function merge(
  options: ProviderOptions,
  key: string,
  defaults: Record<string, JSONValue>,
  values: Record<string, JSONValue | undefined>,
): ProviderOptions {
  const set = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as Record<
    string,
    JSONValue
  >;
  return { ...options, [key]: { ...defaults, ...options[key], ...set } };
}

/**
 * For APIs without a negative prompt the model is told in words, which beats dropping the user's wish. One line:
 * multipart bodies (image edits) turn line breaks into CRLF.
 */
export function foldNegative(req: ImageRequest): string {
  const negative = req.negativePrompt?.trim();
  return negative ? `${req.prompt.trim().replace(/[\s.]+$/, "")}. Avoid: ${negative}.` : req.prompt;
}

/** The style folded into the prompt, for providers without a style parameter. */
export function foldStyle(req: VideoRequest): string {
  return `${req.prompt.trim().replace(/[\s.]+$/, "")}, ${req.style} style`;
}

const trustedOrigins = new WeakMap<object, string>();

/**
 * The origin a video model's output URLs may be downloaded from even when it is a private address. The SDK's
 * download refuses private and loopback hosts (against a provider answer pointing inside our network); an operator
 * who set a base URL override (a local stand-in, a proxy on the LAN) has vouched for that host.
 */
export function trustedOutputOrigin(model: VideoModelV4): string | undefined {
  return trustedOrigins.get(model);
}

export function trustOutputsFrom(model: VideoModelV4, baseURL: string | undefined): VideoModelV4 {
  if (baseURL) trustedOrigins.set(model, new URL(baseURL).origin);
  return model;
}

/** How long a connection check waits for the provider's answer. */
export const CHECK_TIMEOUT_MS = 10_000;

/** One authenticated read that tells whether a connection works, and how to read its answer. */
export interface CheckRead {
  url: string;
  headers: Record<string, string>;
  /** The secrets the request carries: scrubbed from anything the provider says back. */
  secrets: readonly (string | undefined)[];
  /** For a provider that refuses a key with another status than 401 or 403. */
  unauthorized?: (status: number, body: string) => boolean;
  /** What is worth telling of an accepted answer (the account a token belongs to); without it the body is not read. */
  describe?: (body: unknown) => string | undefined;
}

/** A failed check for settings that cannot be tried at all. */
export function invalidSettings(detail: string): ConnectionCheck {
  return { ok: false, code: "invalid", detail };
}

/** A base URL and a path, with no doubled slash between them. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, "")}${path}`;
}

/**
 * Sends one GET and reads its answer as a connection check: 2xx is a yes; 401 and 403 a refused key; no answer,
 * a timeout or a 5xx an unreachable provider; anything else (another 4xx, a redirect) a refusal. Redirects are not
 * followed, so a base URL cannot forward the key to another host. A caller's abort is thrown, not reported.
 */
export async function checkWithRead(read: CheckRead, signal: AbortSignal): Promise<ConnectionCheck> {
  const timeout = AbortSignal.timeout(CHECK_TIMEOUT_MS);
  const host = new URL(read.url).host;
  const failed = (error: unknown, doing: string): ConnectionCheck => {
    if (signal.aborted) throw signal.reason;
    if (timeout.aborted)
      return { ok: false, code: "unreachable", detail: `${host} did not answer within ${CHECK_TIMEOUT_MS / 1000} s` };
    return { ok: false, code: "unreachable", detail: `${host} ${doing} (${networkReason(error)})` };
  };
  let response: Response;
  try {
    response = await fetch(read.url, {
      headers: { accept: "application/json", ...read.headers },
      redirect: "manual",
      signal: AbortSignal.any([signal, timeout]),
    });
  } catch (error) {
    return failed(error, "could not be reached");
  }
  const { status } = response;
  if (status >= 200 && status < 300 && !read.describe) {
    await response.body?.cancel().catch(() => undefined);
    return { ok: true };
  }
  let body: string;
  try {
    body = await response.text();
  } catch (error) {
    return failed(error, "broke off its answer");
  }
  if (status >= 200 && status < 300) {
    const detail = describeSafely(read.describe, body);
    return detail ? { ok: true, detail: scrub(detail, read.secrets) } : { ok: true };
  }
  const said = scrub(providerMessage(body), read.secrets);
  const detail = `${host} answered HTTP ${status}${said ? `: ${said}` : ""}`;
  if (status === 401 || status === 403 || read.unauthorized?.(status, body))
    return { ok: false, code: "unauthorized", detail };
  if (status >= 500) return { ok: false, code: "unreachable", detail };
  return { ok: false, code: "refused", detail };
}

/** How long reading a model's schema waits for the provider's answer (documents run to hundreds of kilobytes). */
export const DESCRIBE_TIMEOUT_MS = 20_000;

/**
 * Sends one GET to read a provider model and returns its JSON, or throws `DescribeRefusal`: 401 and 403 a refused key
 * (`unauthorized`); 404 an unknown id (`unknown_model`); no answer, a timeout, a 5xx or a redirect (not followed, so a
 * base URL cannot forward the key) an `unreachable` provider; another status or a body that is not JSON `unsupported`.
 * The provider's own words are kept, its secrets scrubbed. A caller's abort is thrown as is.
 */
export async function readForDescribe(read: Omit<CheckRead, "describe">, signal: AbortSignal): Promise<unknown> {
  const timeout = AbortSignal.timeout(DESCRIBE_TIMEOUT_MS);
  const host = new URL(read.url).host;
  const failed = (error: unknown, doing: string): never => {
    if (signal.aborted) throw signal.reason;
    if (timeout.aborted)
      throw new DescribeRefusal("unreachable", `${host} did not answer within ${DESCRIBE_TIMEOUT_MS / 1000} s`);
    throw new DescribeRefusal("unreachable", `${host} ${doing} (${scrub(networkReason(error), read.secrets)})`);
  };
  let response: Response;
  try {
    response = await fetch(read.url, {
      headers: { accept: "application/json", ...read.headers },
      redirect: "manual",
      signal: AbortSignal.any([signal, timeout]),
    });
  } catch (error) {
    return failed(error, "could not be reached");
  }
  let body: string;
  try {
    body = await response.text();
  } catch (error) {
    return failed(error, "broke off its answer");
  }
  const { status } = response;
  if (status >= 200 && status < 300) {
    try {
      return JSON.parse(body) as unknown;
    } catch {
      throw new DescribeRefusal("unsupported", `${host} answered with something other than JSON`);
    }
  }
  const said = scrub(providerMessage(body), read.secrets);
  const detail = `${host} answered HTTP ${status}${said ? `: ${said}` : ""}`;
  if (status === 401 || status === 403 || read.unauthorized?.(status, body))
    throw new DescribeRefusal("unauthorized", detail);
  if (status === 404) throw new DescribeRefusal("unknown_model", detail);
  if (status >= 500 || (status >= 300 && status < 400)) throw new DescribeRefusal("unreachable", detail);
  throw new DescribeRefusal("unsupported", detail);
}

function describeSafely(describe: CheckRead["describe"], body: string): string | undefined {
  try {
    return describe?.(JSON.parse(body));
  } catch {
    return undefined;
  }
}

/** The system's reason a request failed (ECONNREFUSED, ENOTFOUND, a TLS error…), without a stack. */
function networkReason(error: unknown): string {
  const cause = error instanceof Error ? (error.cause as { code?: unknown; message?: unknown } | undefined) : undefined;
  if (typeof cause?.code === "string") return cause.code;
  if (typeof cause?.message === "string") return cause.message;
  return error instanceof Error ? error.message : String(error);
}

const MESSAGE_LENGTH = 200;

/** The provider's own words for an error: the message of OpenAI's, Anthropic's and Google's bodies, fal's and Replicate's detail. */
function providerMessage(body: string): string {
  let said: unknown = body;
  try {
    const parsed = JSON.parse(body) as Record<string, unknown> | null;
    const error = parsed?.error;
    said =
      (error && typeof error === "object" ? (error as { message?: unknown }).message : error) ??
      parsed?.detail ??
      parsed?.message ??
      parsed?.title ??
      "";
  } catch {
    // Not JSON: a proxy's page or plain text, kept only when short enough to be a message
    if (/<[a-z!]/i.test(body)) said = "";
  }
  const text = (typeof said === "string" ? said : JSON.stringify(said)).replace(/\s+/g, " ").trim();
  return text.length > MESSAGE_LENGTH ? `${text.slice(0, MESSAGE_LENGTH - 1)}…` : text;
}

/** Removes the secrets sent, and the masked keys providers quote back (`sk-proj-****abcd`). */
function scrub(text: string, secrets: readonly (string | undefined)[]): string {
  let clean = text;
  for (const secret of secrets) if (secret) clean = clean.replaceAll(secret, "[redacted]");
  return clean.replace(/\S*\*{3,}\S*/g, "[redacted]");
}

/** An image as a data URL, the form providers take inline inputs in. */
export function dataUrl(image: { bytes: Uint8Array; mediaType: string }): string {
  return `data:${image.mediaType};base64,${Buffer.from(image.bytes).toString("base64")}`;
}
