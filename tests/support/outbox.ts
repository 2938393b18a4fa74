import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { waitFor } from "#tests/support/server.ts";

export interface OutboxMail {
  to: string;
  subject: string;
  text: string;
  html: string;
  link: string;
  file: string;
}

/** The outbox of a server on local storage (`DATA_DIR/files`). */
const folder = (dataDir: string) => join(dataDir, "files", "outbox");

/** Every message written to the outbox so far, oldest first. */
export function outbox(dataDir: string): OutboxMail[] {
  let files: string[];
  try {
    files = readdirSync(folder(dataDir))
      .filter((f) => f.endsWith(".json"))
      .sort();
  } catch {
    return [];
  }
  return files.map((file) => ({
    ...(JSON.parse(readFileSync(join(folder(dataDir), file), "utf8")) as OutboxMail),
    file,
  }));
}

/** Waits for the next message to `to` that matches, beyond the `seen` ones (the queue delivers within seconds). */
export async function nextMail(
  dataDir: string,
  to: string,
  match: (mail: OutboxMail) => boolean = () => true,
  seen = new Set<string>(),
) {
  let found: OutboxMail | undefined;
  await waitFor(
    `an e-mail to ${to}`,
    async () => {
      found = outbox(dataDir).find((m) => m.to === to && !seen.has(m.file) && match(m));
      return !!found;
    },
    { timeoutMs: 30_000, intervalMs: 200 },
  );
  seen.add(found!.file);
  return found!;
}
