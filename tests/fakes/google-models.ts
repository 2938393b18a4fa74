import { listen, sendJson } from "#tests/fakes/replicate.ts";

export interface FakeGoogleModels {
  /** Base URL of the API, for GOOGLE_BASE_URL (the AI SDK's form: with `/v1beta`). */
  apiUrl: string;
  close(): Promise<void>;
}

const MODELS = [
  {
    name: "models/gemini-2.5-flash",
    version: "001",
    displayName: "Gemini 2.5 Flash",
    description: "Stable version of Gemini 2.5 Flash.",
    inputTokenLimit: 1_048_576,
    outputTokenLimit: 65_536,
    supportedGenerationMethods: ["generateContent", "countTokens"],
  },
  {
    name: "models/imagen-4.0-generate-001",
    version: "001",
    displayName: "Imagen 4",
    description: "Vertex served Imagen 4.0 model",
    inputTokenLimit: 480,
    outputTokenLimit: 8192,
    supportedGenerationMethods: ["predict"],
  },
];

/** Google's error body: a wrong key is a 400 INVALID_ARGUMENT whose reason is API_KEY_INVALID; no key is a 403. */
function googleError(code: number, status: string, message: string, reason?: string) {
  const details = reason
    ? [
        {
          "@type": "type.googleapis.com/google.rpc.ErrorInfo",
          reason,
          domain: "googleapis.com",
          metadata: { service: "generativelanguage.googleapis.com" },
        },
      ]
    : undefined;
  return { error: { code, message, status, ...(details && { details }) } };
}

/**
 * A local Gemini API's models.list (`GET /v1beta/models`, paginated by `pageSize` and `pageToken`), keyed by the
 * `x-goog-api-key` header or the `key` parameter as Google takes it. Any key is accepted unless `apiKey` names the
 * one to accept.
 */
export async function startFakeGoogleModels(options: { apiKey?: string } = {}): Promise<FakeGoogleModels> {
  const server = await listen(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    const header = req.headers["x-goog-api-key"];
    const key = typeof header === "string" ? header : url.searchParams.get("key");
    if (!key)
      return sendJson(
        res,
        403,
        googleError(
          403,
          "PERMISSION_DENIED",
          "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
        ),
      );
    if (options.apiKey !== undefined && key !== options.apiKey)
      return sendJson(
        res,
        400,
        googleError(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.", "API_KEY_INVALID"),
      );
    if (req.method !== "GET" || url.pathname !== "/v1beta/models")
      return sendJson(res, 404, googleError(404, "NOT_FOUND", `${url.pathname} was not found.`));
    const pageSize = Math.min(1000, Math.max(1, Number(url.searchParams.get("pageSize") ?? 50) || 50));
    const start = Number(url.searchParams.get("pageToken") ?? 0) || 0;
    const models = MODELS.slice(start, start + pageSize);
    const next = start + pageSize < MODELS.length ? String(start + pageSize) : undefined;
    sendJson(res, 200, { models, ...(next && { nextPageToken: next }) });
  });
  return { apiUrl: `${server.url}/v1beta`, close: server.close };
}
