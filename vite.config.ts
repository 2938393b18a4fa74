import { execFileSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { reactRouter } from "@react-router/dev/vite";
import { defineConfig, type Plugin } from "vite";
import { encode } from "./server/http/encoding.ts";

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

const ANTD_MODULE = "virtual:antd-stylesheet";
const DEV_ANTD_URL = "/@atelier/antd.css";

/**
 * Ant Design's stylesheet, generated once per build by `scripts/antd-stylesheet.ts` (every style of the components
 * the application uses, light and dark) and emitted as a hashed asset. `virtual:antd-stylesheet` exports its URL.
 */
function antdStylesheet(): Plugin {
  let css: string | undefined;
  let serving = false;
  const generate = () =>
    (css ??= execFileSync(process.execPath, ["scripts/antd-stylesheet.ts"], {
      cwd: import.meta.dirname,
      env: { ...process.env, NODE_ENV: "production" },
      maxBuffer: 64 * 1024 * 1024,
      encoding: "utf8",
    }));
  const fileName = () => `assets/antd-${createHash("sha256").update(generate()).digest("hex").slice(0, 10)}.css`;
  return {
    name: "atelier-antd-stylesheet",
    configResolved(config) {
      serving = config.command === "serve";
    },
    resolveId(id) {
      return id === ANTD_MODULE ? `\0${ANTD_MODULE}` : undefined;
    },
    load(id) {
      if (id !== `\0${ANTD_MODULE}`) return undefined;
      return `export default ${JSON.stringify(serving ? DEV_ANTD_URL : `/${fileName()}`)};`;
    },
    generateBundle() {
      if (this.environment.name !== "client") return;
      this.emitFile({ type: "asset", fileName: fileName(), source: generate() });
    },
    configureServer(server) {
      server.middlewares.use(DEV_ANTD_URL, (_req, res) => {
        res.setHeader("Content-Type", "text/css; charset=utf-8");
        res.end(generate());
      });
    },
  };
}

const SCALAR_MODULE = "virtual:scalar-api-reference";

/**
 * Scalar's own browser build of its API reference (its package lists no export for it): one prebuilt module and its
 * chunks, instead of the five thousand source modules of its Vue application for the bundler to read. The server
 * never draws the interactive reference: its build gets a module that says so, not 4 MB it would never load.
 */
function scalarReference(): Plugin {
  const standalone = join(import.meta.dirname, "node_modules/@scalar/api-reference/dist/browser/standalone.esm.js");
  return {
    name: "atelier-scalar-reference",
    resolveId(id) {
      if (id !== SCALAR_MODULE) return undefined;
      return this.environment.config.consumer === "client" ? standalone : `\0${SCALAR_MODULE}`;
    },
    load(id) {
      if (id !== `\0${SCALAR_MODULE}`) return undefined;
      return `export function createApiReference() { throw new Error("The interactive reference is drawn in the browser."); }`;
    },
  };
}

const SERVER_DIR = join(import.meta.dirname, "server") + "/";

/**
 * Fails the build when code from `server/` would reach the browser. Client code may import its types (they vanish
 * in the build); a value import, even an indirect one, would ship server code and its secrets' names to every
 * visitor. ESLint refuses the direct ones in client folders; this catches any path.
 */
function serverStaysOnServer(): Plugin {
  return {
    name: "atelier-server-stays-on-server",
    apply: "build",
    generateBundle(_options, bundle) {
      if (this.environment.name !== "client") return;
      const leaks = Object.values(bundle).flatMap((chunk) =>
        chunk.type === "chunk"
          ? chunk.moduleIds.filter((id) => id.startsWith(SERVER_DIR)).map((id) => `${chunk.fileName} ← ${id}`)
          : [],
      );
      if (leaks.length > 0) this.error(`server modules in the browser's bundle:\n${leaks.join("\n")}`);
    },
  };
}

const COMPRESSIBLE = /\.(js|mjs|css|svg|json|txt|xml|webmanifest)$/;

/** Brotli and gzip beside every compressible client file, so the server never compresses an asset per request. */
function precompress(): Plugin {
  return {
    name: "atelier-precompress",
    apply: "build",
    async writeBundle(options) {
      if (!options.dir) return;
      // React Router writes the browser's route manifest (assets/manifest-*.js) into the client folder while the
      // server is built, after the client's bundle: the server build's turn compresses what is still missing.
      const server = this.environment.name === "ssr";
      if (!server && this.environment.name !== "client") return;
      const files: string[] = [];
      const walk = (dir: string) => {
        for (const name of readdirSync(dir)) {
          const path = join(dir, name);
          if (statSync(path).isDirectory()) walk(path);
          else if (COMPRESSIBLE.test(name) && statSync(path).size >= 1024) {
            if (!server || !existsSync(`${path}.br`)) files.push(path);
          }
        }
      };
      walk(server ? join(options.dir, "..", "client") : options.dir);
      // A few files at a time: brotli at its best quality holds a large window per file, and starting every file at
      // once held them all (hundreds of MB on top of the build's own memory); the zlib threads are as busy either way.
      let next = 0;
      const compressOne = async () => {
        while (next < files.length) {
          const path = files[next++]!;
          const body = readFileSync(path);
          const [b, g] = await Promise.all([encode(body, "br", "best"), encode(body, "gzip", "best")]);
          if (b.length < body.length) writeFileSync(`${path}.br`, b);
          if (g.length < body.length) writeFileSync(`${path}.gz`, g);
        }
      };
      await Promise.all(
        Array.from({ length: Math.min(files.length, Math.max(2, availableParallelism())) }, compressOne),
      );
    },
  };
}

/**
 * The modules every public page runs (the shell around it, its small components, the icons they draw) in one chunk
 * instead of dozens of tiny ones: fewer requests and preload links on a first visit. Ant Design's own modules never
 * match, so the dashboard's library stays out of it; nor do the form components, which only the sign-in pages load.
 * A component of `components/ui/` is in it: one that draws with Ant Design belongs with the pages that use it.
 */
const PUBLIC_SHELL = new RegExp(
  [
    String.raw`[\/]app[\/]components[\/](ui[\/](?!form\.|progress\.)|layout[\/](default-layout|language-switcher|theme-switch|user-menu|nav)\.)`,
    String.raw`[\/]app[\/]components[\/](preferences|feedback|flash-toast|loading-bar|not-found|error-page|nonce|theme)\.`,
    String.raw`[\/]app[\/](lib[\/](use-site|credits|typed-before-hydration)|i18n[\/]antd|seo|updates[\/]\w+)\.`,
    String.raw`[\/]common[\/](locales|cookies|flash|format|theme|return-path|i18n|auth-limits)\.`,
  ].join("|"),
);

// The server build holds the whole server, not only the React Router app: one bundle, one copy of every module.
export default defineConfig({
  build: {
    target: "es2022",
    // The chunks past Vite's 500 kB are the API reference's and the chat's Markdown and maths, each loaded only on the
    // page that shows it: not a warning a person starting the server should read.
    chunkSizeWarningLimit: 1024,
    // Rolldown's report of slow plugins is for profiling the build, not for every start.
    rolldownOptions: { checks: { pluginTimings: false } },
  },
  ssr: {
    noExternal: [
      // Ant Design's package entry for Node loads every component (about 17 MB of heap); bundled from its ES
      // modules, the server holds only the components the pages use.
      "antd",
      "@ant-design/icons",
      "@ant-design/icons-svg",
      /^@rc-component\//,
      // Libraries of many small modules, each found, read and compiled on every start when left to Node: bundled,
      // a start loads 734 modules instead of 1,635 and imports the server in 1.2 s instead of 2.0 s. Only those
      // whose every importer is bundled too (one copy of each class in memory); zod stays out for the AI SDK.
      "kysely",
      "better-auth",
      /^@better-auth\//,
      "drizzle-orm",
      "hono",
      /^@hono\//,
      "jose",
      "yaml",
      "semver",
      "@babel/runtime",
    ],
  },
  environments: {
    client: {
      build: {
        rolldownOptions: {
          output: { codeSplitting: { groups: [{ name: "shell", test: PUBLIC_SHELL }] } },
        },
      },
    },
    ssr: {
      build: {
        target: "node22",
        rollupOptions: {
          input: "./server/entry.ts",
          // One file for the server: the pages' on-demand imports (the forms' schemas) have nothing to split here.
          checks: { ineffectiveDynamicImport: false },
        },
      },
    },
  },
  plugins: [reactRouter(), buildInfo(), antdStylesheet(), scalarReference(), serverStaysOnServer(), precompress()],
});
