import { createServer } from "vite";

/**
 * Loads server modules through Vite, as the server's build has them: the offline prompt helper and the answer read
 * their translations with `import.meta.glob`, which only Vite provides. Close the returned server when done.
 */
export async function throughVite() {
  const vite = await createServer({
    configFile: false,
    root: new URL("..", import.meta.url).pathname,
    logLevel: "error",
    server: { middlewareMode: true, hmr: false, ws: false },
    appType: "custom",
    optimizeDeps: { noDiscovery: true, include: [] },
  });
  return { load: (path) => vite.ssrLoadModule(path), close: () => vite.close() };
}
