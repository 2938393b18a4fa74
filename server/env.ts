import { z } from "zod";
import { packsSchema } from "#server/modules/settings/schema.ts";
import { C2paCredentialsError, loadC2paCredentials } from "#server/media/c2pa-certificate.ts";

const bool = z.enum(["on", "off", "true", "false", "1", "0"]).transform((v) => v === "on" || v === "true" || v === "1");

/** A comma-separated list of words, each trimmed, the empty ones left out. */
const commaList = z.string().transform((v) =>
  v
    .split(",")
    .map((m) => m.trim())
    .filter(Boolean),
);
/** Model ids as the providers spell them. */
const modelIds = commaList.pipe(z.array(z.string().regex(/^[\w./:-]{1,100}$/)));

const schema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("production"),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default("0.0.0.0"),
  DATA_DIR: z.string().min(1).default("./data"),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "a postgres:// or postgresql:// connection URL")
    .optional(),
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
  DATABASE_CONNECT_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(3600).default(60),
  SITE_URL: z.url({ protocol: /^https?$/ }).optional(),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  WORKER: z.enum(["on", "off"]).default("on"),
  /**
   * The offline image classifier among the output checks (about 150 MiB while loaded, in the process running jobs);
   * off leaves the provider's flags and the moderation service.
   */
  IMAGE_CLASSIFIER: z.enum(["on", "off"]).default("on"),
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  /** A standalone worker serves /metrics, /healthz and /readyz on this port (on HOST); unset: no HTTP at all. */
  WORKER_METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(10 * 1024 * 1024),
  /** Time a client has to send a whole request (headers and body); a slower one gets 408 and is closed. */
  REQUEST_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(3600).default(60),
  /** Time a client has to send a request's headers. */
  HEADERS_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(600).default(15),
  /** Connections one address may hold open at once (0: no bound); not applied behind a proxy (CLIENT_IP_HEADER). */
  MAX_CONNECTIONS_PER_ADDRESS: z.coerce.number().int().min(0).max(100_000).default(256),
  TRUST_PROXY: bool.default(false),
  /**
   * Pages one address may have rendered per minute, counted in each process's memory (0: no bound). Pages served
   * from the page cache, assets, health checks and metrics are not counted. Behind a proxy, set CLIENT_IP_HEADER.
   */
  PAGE_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).max(1_000_000).default(600),
  /**
   * Pages rendered and API calls this process works at once (0: no bound); the next ones wait their turn for at most
   * MAX_QUEUE_MS, and those whose turn would come later are refused with 503 and `Retry-After` (load shedding).
   */
  MAX_CONCURRENT_REQUESTS: z.coerce.number().int().min(0).max(100_000).default(8),
  /** The longest a request waits for its turn under MAX_CONCURRENT_REQUESTS before it is refused. */
  MAX_QUEUE_MS: z.coerce.number().int().min(1).max(60_000).default(400),
  /** Memory the cache of public pages for signed-out visitors may hold (0 turns it off). */
  PAGE_CACHE_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .default(32 * 1024 * 1024),
  /** Results in each of the results' sitemaps (the protocol's limit is 50,000 addresses and 50 MB a file). */
  SITEMAP_RESULTS_PER_FILE: z.coerce.number().int().min(1).max(20_000).default(5_000),
  /**
   * Pages under `/__test/` that the end-to-end suite uses to raise each kind of error, and a request the shutdown
   * tests hold until the port closes; never set in production.
   */
  TEST_ROUTES: bool.default(false),
  /** When set, `/metrics` answers only requests with `Authorization: Bearer <this token>`. */
  METRICS_TOKEN: z.string().min(16, "at least 16 characters").max(256).optional(),
  SHUTDOWN_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(600).default(20),
  /**
   * On SIGTERM, how long the web process keeps serving while `/readyz` answers 503 `draining`, so that a load balancer
   * sees it and stops sending traffic before the port closes. SIGINT (Ctrl-C) skips it.
   */
  SHUTDOWN_DELAY_SECONDS: z.coerce.number().int().min(0).max(300).default(5),
  SITE_NAME: z.string().min(1).max(60).optional(),
  SITE_SUPPORT_EMAIL: z.email().optional(),
  SITE_PRIMARY_COLOR: z
    .string()
    .regex(/^#[0-9a-fA-F]{6}$/, "a colour like #4f46e5")
    .optional(),
  SITE_DEFAULT_LOCALE: z.enum(["en", "zh", "ru", "de", "fr", "ja", "ko", "es", "pt", "tr"]).optional(),
  /** Credits every new account gets once, when it first signs in with a confirmed address. */
  SIGNUP_BONUS_CREDITS: z.coerce.number().int().min(0).max(1_000_000).optional(),
  /**
   * Credit packs as JSON, replacing the defaults: [{"id":"starter","credits":100,"amount":500,"currency":"usd"}, ...]
   * (`amount` in minor units; `popular: true` marks one).
   */
  CREDIT_PACKS: z
    .string()
    .transform((v, ctx) => {
      try {
        return JSON.parse(v) as unknown;
      } catch {
        ctx.addIssue({ code: "custom", message: "a JSON array of packs" });
        return z.NEVER;
      }
    })
    .pipe(packsSchema)
    .optional(),
  /** Stripe secret key (sk_live_… or sk_test_…); purchasing is offered only with it and the webhook secret. */
  STRIPE_SECRET_KEY: z
    .string()
    .regex(/^(sk|rk)_(test|live)_\w+$/, "a Stripe secret key (sk_test_… or sk_live_…)")
    .optional(),
  /** Signing secret of the `/webhooks/stripe` endpoint (whsec_…). */
  STRIPE_WEBHOOK_SECRET: z
    .string()
    .regex(/^whsec_\w+$/, "a Stripe webhook signing secret (whsec_…)")
    .optional(),
  /** Where the Stripe API is; only tests point it elsewhere. */
  STRIPE_API_URL: z.url({ protocol: /^https?$/ }).default("https://api.stripe.com"),
  /** OpenAI Images (gpt-image-1, dall-e-3); OPENAI_BASE_URL points at a proxy or a local stand-in. */
  OPENAI_API_KEY: z.string().min(1).optional(),
  OPENAI_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  /** Replicate (Flux and video models). */
  REPLICATE_API_TOKEN: z.string().min(1).optional(),
  REPLICATE_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  /**
   * fal.ai (Flux and video models). FAL_BASE_URL replaces both of fal's hosts: synchronous calls go to it, queued
   * ones (video) to `<FAL_BASE_URL>/queue`.
   */
  FAL_KEY: z.string().min(1).optional(),
  FAL_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  /**
   * ComfyUI servers (comma-separated URLs) that make the environment's ComfyUI pool; workflows are added on it as
   * models. More pools are added as connections.
   */
  COMFYUI_URLS: z
    .string()
    .optional()
    .refine(
      (v) => !v || v.split(",").every((u) => !u.trim() || URL.canParse(u.trim())),
      "comma-separated http(s) URLs",
    ),
  /** A header ("Name: value") sent to each of those servers: the credential a proxy in front of them asks for. */
  COMFYUI_HEADER: z.string().min(3).optional(),
  /** Any server speaking OpenAI's images API (LocalAI, vLLM, a gateway): base URL, optional key, its model ids. */
  OPENAI_COMPATIBLE_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  OPENAI_COMPATIBLE_API_KEY: z.string().min(1).optional(),
  OPENAI_COMPATIBLE_IMAGE_MODELS: modelIds.default([]),
  /** The chat models of that OpenAI-compatible server (Ollama, vLLM, LM Studio, OpenRouter), comma-separated. */
  OPENAI_COMPATIBLE_CHAT_MODELS: modelIds.default([]),
  /** Anthropic's chat models (Claude); ANTHROPIC_BASE_URL points at a proxy or a local stand-in. */
  ANTHROPIC_API_KEY: z.string().min(1).optional(),
  ANTHROPIC_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  /**
   * Google's Gemini API: chat (Gemini), images (Nano Banana) and videos (Veo); GOOGLE_BASE_URL (up to `/v1beta`)
   * points at a proxy or a local stand-in.
   */
  GOOGLE_GENERATIVE_AI_API_KEY: z.string().min(1).optional(),
  GOOGLE_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  /**
   * The chat starts an image or a video a model asks for by itself up to this many credits; above it, its author
   * confirms it first (0: always asks).
   */
  CHAT_CONFIRM_ABOVE_CREDITS: z.coerce.number().int().min(0).max(1_000_000).default(10),
  /** Model ids an operator turns off (comma-separated), even when their provider is configured. */
  DISABLED_MODELS: commaList.default([]),
  /**
   * Per-model settings as JSON, over the catalog's: {"flux-dev": {"credits": 4, "timeoutSeconds": 120}}. `credits`
   * is the price per unit (image, video or second of video), `expectedSeconds` the first estimate of a job.
   */
  MODEL_SETTINGS: z
    .string()
    .transform((v, ctx) => {
      try {
        return JSON.parse(v) as unknown;
      } catch {
        ctx.addIssue({ code: "custom", message: "a JSON object of model settings" });
        return z.NEVER;
      }
    })
    .pipe(
      z.record(
        z.string().regex(/^[\w.-]{1,100}$/),
        z.strictObject({
          credits: z.number().int().min(0).max(1_000_000).optional(),
          timeoutSeconds: z.number().int().min(1).max(86_400).optional(),
          expectedSeconds: z.number().min(0.1).max(86_400).optional(),
        }),
      ),
    )
    .default({}),
  /** The offline demo models (on by default, so the product works with no keys and no network). */
  DEMO_MODELS: bool.default(true),
  /** S3-compatible storage (AWS S3, Cloudflare R2, MinIO); without S3_BUCKET files stay under DATA_DIR. */
  S3_BUCKET: z.string().min(3).max(63).optional(),
  S3_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
  S3_REGION: z.string().min(1).default("us-east-1"),
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  /** Path-style URLs (bucket in the path), which MinIO and most self-hosted servers need. */
  S3_FORCE_PATH_STYLE: bool.optional(),
  /** Extra seconds after a job's timeout before the sweeper fails it and returns its credits. */
  GENERATION_SWEEP_MARGIN_SECONDS: z.coerce.number().int().min(5).max(3600).default(60),
  /** Requests one API key may make per minute, on all instances together. */
  API_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(60),
  /** Requests per minute one account may make through all its API keys together. */
  API_ACCOUNT_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(120),
  /**
   * How long a request to the OpenAI-compatible API waits for its images (and a retry for its first attempt) before
   * answering how to follow the job; keep it under the reverse proxy's timeout.
   */
  API_WAIT_SECONDS: z.coerce.number().int().min(1).max(600).default(90),
  /**
   * Webhook receivers on private networks and loopback, over http or https: for an instance whose users are the
   * operator's own services. Off, every receiver must be an https URL on the public internet.
   */
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: bool.optional(),
  /**
   * Origins (`http://images.internal:8080`, comma-separated) whose image URLs a request may give although they are on
   * a private network or plain http: the operator's own image store. Every other image URL must be https on the
   * public internet, checked at every redirect.
   */
  INPUT_URL_ALLOWED_ORIGINS: commaList.default([]),
  /** First wait before a failed webhook is sent again; each further wait doubles (with jitter), up to an hour. */
  WEBHOOK_RETRY_DELAY_SECONDS: z.coerce.number().int().min(1).max(3600).default(10),
  /** How long the video page keeps checking a running video before it says to try again. */
  VIDEO_POLL_TIMEOUT_SECONDS: z.coerce.number().int().min(5).max(86_400).default(600),
  TURNSTILE_SITE_KEY: z.string().min(1).optional(),
  TURNSTILE_SECRET_KEY: z.string().min(1).optional(),
  /** Where Turnstile tokens are verified; only tests point it elsewhere. */
  TURNSTILE_VERIFY_URL: z.url().default("https://challenges.cloudflare.com/turnstile/v0/siteverify"),
  /**
   * Encrypts provider connections' keys kept in the database (AES-256-GCM): 64 hex digits, 32 bytes in base64, or
   * any text of 32 characters or more. Unset, a key derived from AUTH_SECRET (or the database's secret) is used.
   */
  ENCRYPTION_KEY: z.string().min(32, "64 hex digits or a random string of at least 32 characters").optional(),
  /** Keys ENCRYPTION_KEY replaced (comma-separated): they only open keys sealed before a rotation. */
  ENCRYPTION_KEY_PREVIOUS: commaList.default([]),
  /** Signs session cookies and tokens; generated once and kept in the database when unset. */
  AUTH_SECRET: z.string().min(32, "a random string of at least 32 characters").optional(),
  /** Comma-separated e-mails that become admins when they sign up or sign in. */
  ADMIN_EMAILS: z
    .string()
    .transform((v) =>
      v
        .split(",")
        .map((e) => e.trim().toLowerCase())
        .filter(Boolean),
    )
    .pipe(z.array(z.email()))
    .default([]),
  /** Request header that carries the client's address, set by your reverse proxy (e.g. x-forwarded-for). */
  CLIENT_IP_HEADER: z
    .string()
    .regex(/^[A-Za-z0-9-]+$/, "a header name such as x-forwarded-for")
    .transform((v) => v.toLowerCase())
    .optional(),
  /** smtp:// or smtps:// URL; without it e-mails are written to the outbox folder in DATA_DIR. */
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, "an smtp:// or smtps:// URL")
    .optional(),
  MAIL_FROM: z.string().min(3).optional(),
  GITHUB_CLIENT_ID: z.string().min(1).optional(),
  GITHUB_CLIENT_SECRET: z.string().min(1).optional(),
  GOOGLE_CLIENT_ID: z.string().min(1).optional(),
  GOOGLE_CLIENT_SECRET: z.string().min(1).optional(),
  /** Any OpenID Connect / OAuth 2.0 provider (Keycloak, Authentik, Auth0, ...) as a sign-in button. */
  OIDC_NAME: z.string().min(1).max(40).optional(),
  OIDC_CLIENT_ID: z.string().min(1).optional(),
  OIDC_CLIENT_SECRET: z.string().min(1).optional(),
  OIDC_DISCOVERY_URL: z.url().optional(),
  OIDC_AUTHORIZATION_URL: z.url().optional(),
  OIDC_TOKEN_URL: z.url().optional(),
  OIDC_USERINFO_URL: z.url().optional(),
  /**
   * The C2PA claim-signing certificate (PEM, the signing certificate first, then its intermediates) and its private key
   * (PEM, PKCS#8): with both, PNG and JPEG outputs carry a C2PA manifest signed with them. Checked at boot.
   */
  C2PA_CERT: z.string().min(1).optional(),
  C2PA_KEY: z.string().min(1).optional(),
  CLARITY_ID: z.string().min(1).optional(),
  GA4_ID: z.string().min(1).optional(),
  ADSENSE_ACCOUNT: z.string().min(1).optional(),
  GOOGLE_SITE_VERIFICATION: z.string().min(1).optional(),
  BING_SITE_VERIFICATION: z.string().min(1).optional(),
});

export type Env = z.infer<typeof schema>;

export class EnvError extends Error {}

/** Parses an environment; empty strings count as unset so `FOO=` in a .env file means "default". */
export function parseEnv(source: Record<string, string | undefined>): Env {
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ""));
  const result = schema.safeParse(cleaned);
  if (result.success) {
    checkC2pa(result.data);
    return result.data;
  }
  const issue = result.error.issues[0]!;
  const name = String(issue.path[0] ?? "environment");
  const shown = cleaned[name] === undefined ? "missing" : `got ${JSON.stringify(cleaned[name])}`;
  throw new EnvError(`Invalid environment variable ${name}: expected ${describe(issue)} (${shown})`);
}

/** The signing certificate and key are given together, and are ones C2PA validators accept. */
function checkC2pa(parsed: Env) {
  const { C2PA_CERT: cert, C2PA_KEY: key } = parsed;
  if (!cert && !key) return;
  if (!cert || !key) {
    const missing = cert ? "C2PA_KEY" : "C2PA_CERT";
    throw new EnvError(
      `Invalid environment variable ${missing}: expected set together with ${cert ? "C2PA_CERT" : "C2PA_KEY"} (missing)`,
    );
  }
  try {
    loadC2paCredentials(cert, key);
  } catch (error) {
    if (!(error instanceof C2paCredentialsError)) throw error;
    const shown = error.variable === "C2PA_CERT" ? cert : key;
    throw new EnvError(
      `Invalid environment variable ${error.variable}: expected ${error.message} (got ${JSON.stringify(shown)})`,
    );
  }
}

function describe(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case "invalid_value":
      return `one of ${issue.values.map((v) => String(v)).join(", ")}`;
    case "too_small":
      return `a value of at least ${String(issue.minimum)}`;
    case "too_big":
      return `a value of at most ${String(issue.maximum)}`;
    case "invalid_type":
      return `a ${issue.expected}`;
    default:
      return issue.message;
  }
}

let cached: Env | undefined;

/** The process environment, parsed once. The only place that reads process.env. */
export function env(): Env {
  cached ??= parseEnv(process.env);
  return cached;
}

/** Parses at boot; on failure prints one line naming the variable and exits with 1. */
export function loadEnvOrExit(): Env {
  try {
    return env();
  } catch (error) {
    if (error instanceof EnvError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}
