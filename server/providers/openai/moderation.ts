import type { Connection } from "#server/modules/catalog/catalog.ts";

const OPENAI_URL = "https://api.openai.com/v1";

/**
 * Where OpenAI's moderation service is for this installation: the first OpenAI connection that can serve, with its
 * key and base URL (a proxy or a local stand-in), and its name to show the operator.
 */
export function moderationConnection(
  connections: readonly Connection[],
): { name: string; url: string; apiKey: string } | null {
  for (const connection of connections) {
    if (connection.provider !== "openai" || !connection.enabled || connection.problem || !connection.settings) continue;
    const { apiKey, baseURL } = connection.settings as { apiKey?: unknown; baseURL?: unknown };
    if (typeof apiKey !== "string" || !apiKey) continue;
    const base = typeof baseURL === "string" && baseURL ? baseURL : OPENAI_URL;
    return { name: connection.name, url: `${base.replace(/\/+$/, "")}/moderations`, apiKey };
  }
  return null;
}
