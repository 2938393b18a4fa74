/**
 * The offline demo's results are illustrations drawn on the server from the prompt's words, not a model's work:
 * every place that shows one says so and links to the page that explains how to connect a provider.
 */
export const CONNECT_PROVIDER_PATH = "/docs/configuration";

/** What the public APIs say beside a demo result (in English, like the APIs' other messages). */
export function demoNotice(origin: string): string {
  return (
    "An illustration by the offline demo model: drawn on this server from the prompt's words, not by an AI model. " +
    `Connect an AI provider for real images and videos: ${origin}${CONNECT_PROVIDER_PATH}`
  );
}

/** The public APIs' two fields on every result: whether it is the demo's, and the notice when it is. */
export function demoFields(offline: boolean, origin: string): { demo: boolean; notice: string | null } {
  return { demo: offline, notice: offline ? demoNotice(origin) : null };
}
