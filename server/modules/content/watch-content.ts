import { watch, type FSWatcher } from "node:fs";
import type { Logger } from "pino";
import { CONTENT_DIR } from "#server/paths.ts";
import { forgetRenderedContent } from "#server/modules/content/markdown.ts";

const SETTLE_MS = 200;

/**
 * Watches the Markdown content: when a file changes, rendered pages are forgotten and `onChange` runs (the page
 * cache empties), so an edit shows without a restart. A burst of changes (a checkout, a copy) counts once.
 */
export function watchContent(options: { logger: Logger; onChange: () => void }): FSWatcher | null {
  let timer: NodeJS.Timeout | undefined;
  try {
    const watcher = watch(CONTENT_DIR, { recursive: true }, () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        forgetRenderedContent();
        options.onChange();
        options.logger.info("content changed: rendered pages forgotten");
      }, SETTLE_MS);
      timer.unref();
    });
    watcher.on("error", (error) => options.logger.warn({ err: error.message }, "content watch stopped"));
    watcher.unref();
    return watcher;
  } catch (error) {
    options.logger.warn(
      { err: (error as Error).message },
      "content changes will need a restart: cannot watch the folder",
    );
    return null;
  }
}
