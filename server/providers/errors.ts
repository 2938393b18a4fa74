import {
  APICallError,
  AISDKError,
  DownloadError,
  EmptyResponseBodyError,
  InvalidResponseDataError,
  JSONParseError,
  LoadAPIKeyError,
  NoImageGeneratedError,
  NoVideoGeneratedError,
  RetryError,
  TypeValidationError,
} from "ai";

export type ProviderFailureCode =
  | "content_rejected"
  | "invalid_request"
  | "provider_unavailable"
  | "provider_auth"
  | "quota_exceeded"
  | "rate_limited"
  | "timeout"
  | "canceled"
  | "parse_error"
  | "output_unavailable";

export interface ProviderFailure {
  code: ProviderFailureCode;
  /** Whether another provider may succeed where this one failed (the problem was the provider's, not the request's). */
  failover: boolean;
  /** Short and log-safe: no keys, no signed URLs, no prompt text beyond what a provider echoes in an error message. */
  detail: string;
}

/**
 * An HTTP error answer that an SDK model would otherwise reduce to its status text. The fal video model turns any
 * error from its result endpoint into a bare message ("Unprocessable Entity"), dropping the status and body that
 * tell a content rejection from an outage; the adapter raises this instead (see external.ts).
 */
export class ProviderHttpError extends Error {
  override readonly name = "ProviderHttpError";
  readonly url: string;
  readonly statusCode: number;
  readonly responseBody: string;

  constructor(options: { url: string; statusCode: number; responseBody: string }) {
    super(`HTTP ${options.statusCode}`);
    this.url = options.url;
    this.statusCode = options.statusCode;
    this.responseBody = options.responseBody;
  }
}

// Wording providers use for safety-system refusals: OpenAI's `moderation_blocked` / `content_policy_violation`,
// fal's `content_policy_violation` validation type, Replicate's "NSFW content detected" prediction errors, Veo's
// prompts refused as against its "safety guidelines".
const CONTENT_REJECTION =
  /moderation_blocked|content_policy|content policy|safety system|safety filter|safety guidelines|nsfw|flagged|unsafe content|sensitive content|content checker/i;
// Google answers a key it does not know with a 400 whose reason says so (and a missing key with a 403).
const GOOGLE_KEY_REJECTED = /API_KEY_INVALID|API key not valid|API_KEY_SERVICE_BLOCKED/;
// Why Gemini stopped without the image it was asked for: its safety filters (a finish reason, or the prompt blocked).
const SAFETY_FINISH = /SAFETY|PROHIBITED_CONTENT|BLOCKLIST|SPII|RECITATION/;
const QUOTA = /insufficient_quota|billing_hard_limit|quota|insufficient credit|spend limit|exhausted balance/i;
const BILLING = /insufficient_quota|billing_hard_limit/;

const failure = (code: ProviderFailureCode, failover: boolean, detail: string): ProviderFailure => ({
  code,
  failover,
  detail: redact(detail),
});

/**
 * Maps whatever a provider call threw onto the engine's failure codes. `signals` carry what the engine itself knows:
 * when it aborted the call for its own deadline or on the user's request, that decides the outcome whatever error
 * the abort surfaced as.
 */
/** A connection a binding names that cannot serve now (removed, disabled, its key unreadable): the next one is tried. */
export class ConnectionUnavailable extends Error {}

export function classifyProviderError(
  error: unknown,
  signals: { timedOut?: boolean; canceled?: boolean } = {},
): ProviderFailure {
  if (signals.canceled) return failure("canceled", false, "canceled");
  if (signals.timedOut) return failure("timeout", false, "timed out");
  return classify(error, 0);
}

function classify(error: unknown, depth: number): ProviderFailure {
  if (depth > 5) return failure("provider_unavailable", true, describe(error));
  if (error instanceof Error || (typeof DOMException === "function" && error instanceof DOMException)) {
    if (error.name === "TimeoutError") return failure("timeout", false, "timed out");
    if (error.name === "AbortError" || error.name === "ResponseAborted") return failure("canceled", false, "aborted");
  }
  if (error instanceof ConnectionUnavailable) return failure("provider_unavailable", true, error.message);
  if (RetryError.isInstance(error)) return classify(error.lastError, depth + 1);
  if (DownloadError.isInstance(error)) {
    // The SDK's download wraps whatever stopped it, an abort included.
    if (error.cause instanceof Error && /^(AbortError|TimeoutError)$/.test(error.cause.name))
      return classify(error.cause, depth + 1);
    const status = error.statusCode ? `HTTP ${error.statusCode}` : describe(error.cause ?? error);
    return failure("output_unavailable", true, `output download failed from ${host(error.url)}: ${status}`);
  }
  if (error instanceof ProviderHttpError)
    return byStatus(error.statusCode, error.url, error.responseBody, messageOf(error.responseBody) ?? "", false);
  if (APICallError.isInstance(error)) return fromApiCall(error);
  if (InvalidResponseDataError.isInstance(error)) return fromInvalidData(error);
  if (NoImageGeneratedError.isInstance(error)) {
    const refusal = safetyRefusal(error);
    return refusal
      ? failure("content_rejected", false, `no image: ${refusal}`)
      : failure("parse_error", true, describe(error));
  }
  if (
    JSONParseError.isInstance(error) ||
    TypeValidationError.isInstance(error) ||
    EmptyResponseBodyError.isInstance(error) ||
    NoVideoGeneratedError.isInstance(error)
  )
    return failure("parse_error", true, describe(error));
  if (LoadAPIKeyError.isInstance(error)) return failure("provider_auth", true, "API key missing");
  // The fal, Replicate and Google video models throw these when a finished job's answer lacks the video URL.
  if (AISDKError.isInstance(error) && error.name.endsWith("_GENERATION_ERROR"))
    return failure("parse_error", true, describe(error));
  if (error instanceof Error) return fromJobMessage(error.message);
  return failure("provider_unavailable", true, describe(error));
}

function fromApiCall(error: APICallError): ProviderFailure {
  const body = [error.responseBody ?? "", JSON.stringify(error.data ?? null), error.message].join(" ");
  const cause = error.cause;
  if (JSONParseError.isInstance(cause) || TypeValidationError.isInstance(cause))
    return failure("parse_error", true, `malformed response from ${host(error.url)}`);
  if (error.statusCode === undefined)
    return failure("provider_unavailable", true, `${host(error.url)} unreachable: ${error.message}`);
  if (error.statusCode >= 200 && error.statusCode < 300)
    return failure("parse_error", true, `unusable response from ${host(error.url)}: ${error.message}`);
  const message = messageOf(error.responseBody ?? "") ?? error.message;
  return byStatus(error.statusCode, error.url, body, message, isOutputDownload(error));
}

/**
 * The SDK models fetch two kinds of URL with GET: a job's status (Replicate `/predictions/{id}`, fal
 * `/requests/{id}`, Google `…/operations/{id}`) and the generated files. A failed GET of anything else is an output that is gone or refused.
 */
function isOutputDownload(error: APICallError): boolean {
  const values = error.requestBodyValues;
  const isGet = values == null || (typeof values === "object" && Object.keys(values).length === 0);
  if (!isGet) return false;
  let path: string;
  try {
    path = new URL(error.url).pathname;
  } catch {
    return false;
  }
  return !/\/predictions\/[^/]+$|\/requests\/[^/]+(\/status)?$|\/operations\/[^/]+$/.test(path);
}

/** `body` is everything the provider said (searched for the kind of refusal), `message` its gist for the detail. */
function byStatus(
  status: number,
  url: string,
  body: string,
  message: string,
  outputDownload: boolean,
): ProviderFailure {
  const where = `HTTP ${status} from ${host(url)}`;
  if (outputDownload) return failure("output_unavailable", true, `output download failed: ${where}`);
  // Provider messages on auth failures quote (part of) the key: keep them out of the detail.
  if (status === 401 || status === 403 || (status === 400 && GOOGLE_KEY_REJECTED.test(body)))
    return failure("provider_auth", true, where);
  if (status === 402) return failure("quota_exceeded", true, where);
  if (status === 429)
    return QUOTA.test(body) ? failure("quota_exceeded", true, where) : failure("rate_limited", true, where);
  if (status === 400 || status === 422) {
    if (CONTENT_REJECTION.test(body)) return failure("content_rejected", false, `${where}: ${excerpt(message)}`);
    if (BILLING.test(body)) return failure("quota_exceeded", true, where);
    return failure("invalid_request", false, `${where}: ${excerpt(message)}`);
  }
  // An unknown model or endpoint is this provider's configuration, not the user's request.
  if (status === 404 || status === 405 || status === 410) return failure("provider_unavailable", true, where);
  if (status === 408 || status >= 500) return failure("provider_unavailable", true, where);
  return failure("invalid_request", false, `${where}: ${excerpt(message)}`);
}

/**
 * The human part of a provider's error body: OpenAI's `error.message`, Replicate's problem `detail`, fal's
 * validation items (`detail[].msg`) or `message`.
 */
function messageOf(body: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (!parsed || typeof parsed !== "object") return undefined;
  const { error, detail, message } = parsed as { error?: { message?: unknown }; detail?: unknown; message?: unknown };
  if (typeof error?.message === "string") return error.message;
  if (typeof detail === "string") return detail;
  if (Array.isArray(detail))
    return detail
      .map((item: { loc?: unknown; msg?: unknown }) =>
        [Array.isArray(item.loc) ? item.loc.join(".") : "", typeof item.msg === "string" ? item.msg : ""]
          .filter(Boolean)
          .join(": "),
      )
      .join("; ");
  return typeof message === "string" ? message : undefined;
}

/**
 * The safety finish reason of an image model that answered without an image: Gemini's image models end a refused
 * generation with `IMAGE_SAFETY` (and the like), or report the prompt blocked, instead of an error status.
 */
function safetyRefusal(error: NoImageGeneratedError): string | undefined {
  for (const call of error.calls ?? []) {
    for (const metadata of Object.values(call.providerMetadata ?? {})) {
      const { finishReason, promptFeedback } = metadata as {
        finishReason?: unknown;
        promptFeedback?: { blockReason?: unknown } | null;
      };
      const blocked = promptFeedback?.blockReason;
      if (typeof blocked === "string" && blocked && !/UNSPECIFIED/.test(blocked)) return `prompt blocked (${blocked})`;
      if (typeof finishReason === "string" && SAFETY_FINISH.test(finishReason)) return finishReason;
    }
  }
  return undefined;
}

function fromInvalidData(error: InvalidResponseDataError): ProviderFailure {
  const data = error.data as { status?: unknown; error?: unknown } | null | undefined;
  // Replicate's image model reports a failed or canceled prediction this way, with the prediction as `data`.
  if (data && (data.status === "failed" || data.status === "canceled"))
    return fromJobMessage(typeof data.error === "string" ? data.error : `prediction ${String(data.status)}`);
  return failure("parse_error", true, describe(error));
}

/** A job the provider accepted and then failed, known only by its message. */
function fromJobMessage(message: string): ProviderFailure {
  if (CONTENT_REJECTION.test(message)) return failure("content_rejected", false, excerpt(message));
  if (/timed out|did not complete after/i.test(message)) return failure("timeout", false, excerpt(message));
  return failure("provider_unavailable", true, excerpt(message));
}

function host(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "provider";
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) return excerpt(`${error.name}: ${error.message}`);
  return excerpt(String(error));
}

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 200 ? `${flat.slice(0, 197)}...` : flat;
}

/** Removes what looks like a credential or a signed URL's query string. */
function redact(text: string): string {
  return text
    .replace(/\b(sk|rk|pk|r8)[-_][\w-]{6,}/g, "[redacted]")
    .replace(/\bAIza[\w-]{20,}/g, "[redacted]")
    .replace(/\b(Bearer|Key|Token) [\w.:-]{8,}/g, "$1 [redacted]")
    .replace(/(https?:\/\/[^\s?"']+)\?[^\s"']*/g, "$1?[redacted]");
}
