import { listen, sendJson } from "#tests/fakes/replicate.ts";

export interface FakeAnthropic {
  /** Base URL of the API, for ANTHROPIC_BASE_URL (the AI SDK's form: with `/v1`). */
  apiUrl: string;
  close(): Promise<void>;
}

const MODELS = [
  { type: "model", id: "claude-sonnet-4-5", display_name: "Claude Sonnet 4.5", created_at: "2025-09-29T00:00:00Z" },
  { type: "model", id: "claude-haiku-4-5", display_name: "Claude Haiku 4.5", created_at: "2025-10-01T00:00:00Z" },
];

/**
 * A local Anthropic API: list models (`GET /v1/models`, paginated by `limit` as Anthropic does), behind the
 * `x-api-key` and `anthropic-version` headers, answering with Anthropic's error bodies. Any key is accepted unless
 * `apiKey` names the one to accept.
 */
export async function startFakeAnthropic(options: { apiKey?: string } = {}): Promise<FakeAnthropic> {
  const error = (type: string, message: string) => ({ type: "error", error: { type, message } });
  const server = await listen(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    const key = req.headers["x-api-key"];
    if (typeof key !== "string" || !key)
      return sendJson(res, 401, error("authentication_error", "x-api-key header is required"));
    if (options.apiKey !== undefined && key !== options.apiKey)
      return sendJson(res, 401, error("authentication_error", "invalid x-api-key"));
    if (!req.headers["anthropic-version"])
      return sendJson(res, 400, error("invalid_request_error", "anthropic-version: header is required"));
    if (req.method !== "GET" || url.pathname !== "/v1/models")
      return sendJson(res, 404, error("not_found_error", `${req.method} ${url.pathname} not found`));
    const limit = Math.min(1000, Math.max(1, Number(url.searchParams.get("limit") ?? 20) || 20));
    const data = MODELS.slice(0, limit);
    sendJson(res, 200, {
      data,
      has_more: data.length < MODELS.length,
      first_id: data[0]?.id ?? null,
      last_id: data.at(-1)?.id ?? null,
    });
  });
  return { apiUrl: `${server.url}/v1`, close: server.close };
}
