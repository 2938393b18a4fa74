// Development server: Vite in middleware mode in front of the app (hot module reload for app/),
// the same Hono server as production behind it. `npm run dev` restarts this process when server code changes.
import { createServer } from "vite";

process.env.NODE_ENV = "development";
const vite = await createServer({ server: { middlewareMode: true }, appType: "custom" });
const { start } = await vite.ssrLoadModule("/server/main.ts");
await start({
  devMiddleware: vite.middlewares,
  getServerBuild: () => vite.ssrLoadModule("virtual:react-router/server-build"),
});
