import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { reactRouter } from "@react-router/dev/vite";
import { defineConfig, type Plugin } from "vite";

/** Writes build.json (version, build id, timestamp) next to the client assets; the server and the update check read it. */
function buildInfo(): Plugin {
  const pkg = JSON.parse(readFileSync(new URL("./package.json", import.meta.url), "utf8")) as { version: string };
  const info = { version: pkg.version, id: randomBytes(6).toString("hex"), timestamp: Date.now() };
  return {
    name: "atelier-build-info",
    apply: "build",
    generateBundle() {
      if (this.environment.name !== "client") return;
      this.emitFile({ type: "asset", fileName: "build.json", source: `${JSON.stringify(info)}\n` });
    },
  };
}

// The server build holds the whole server, not only the React Router app: one bundle, one copy of every module.
export default defineConfig({
  build: { target: "es2022" },
  environments: {
    ssr: {
      build: {
        target: "node22",
        rollupOptions: {
          input: "./server/entry.ts",
        },
      },
    },
  },
  plugins: [reactRouter(), buildInfo()],
});
