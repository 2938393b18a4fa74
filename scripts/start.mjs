// Starts a process from the server build: `web` (default), `worker`, `migrate` or `admin`.
// Builds first when the build is missing or older than the sources, so a fresh clone needs only `npm start`.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import module from "node:module";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import { isBuildStale, writeBuildStamp } from "./build-stamp.mjs";

process.env.NODE_ENV ||= "production";
const root = fileURLToPath(new URL("..", import.meta.url));
const role = process.argv[2] ?? "web";
const entry = `${root}build/server/index.js`;
// The process that started this one, noted before a build that may take a while (see below).
process.env.ATELIER_PARENT_PID ||= String(process.ppid);

// Checked once: the process this one replaced with its memory settings (below) has done it
if (!process.env.ATELIER_TUNED && (!existsSync(entry) || isBuildStale(root))) {
  // On stderr, as the build's own output: what a command prints on stdout (an export) stays only that. The build says
  // only what goes wrong (`--logLevel warn`): the list of the files it writes is for `npm run build`.
  const first = !existsSync(entry);
  process.stderr.write(
    first
      ? "Building Atelier for its first start (about a minute)…\n"
      : "Building Atelier again: its sources changed since the last build…\n",
  );
  const started = performance.now();
  // The bundler is native code with its own allocator (mimalloc), which keeps what it frees for a while in case it is
  // asked again: returned at once, the build peaked at about 820 MB instead of 1,010 MB. V8's heap is bounded too; it
  // grows far past the 50 MB the build keeps alive. The build's command is run directly, not through npm (55 MB more
  // for as long as the build runs). Settings already given are kept (docs/PERFORMANCE.md).
  const given = process.env.NODE_OPTIONS ?? "";
  const bounds = ["--max-old-space-size=768", "--max-semi-space-size=8"].filter(
    (f) => !given.includes(f.split("=")[0]),
  );
  const result = spawnSync(
    process.execPath,
    [`${root}node_modules/@react-router/dev/bin.cjs`, "build", "--logLevel", "warn"],
    {
      cwd: root,
      stdio: [0, 2, 2],
      env: {
        ...process.env,
        NODE_ENV: "production",
        MIMALLOC_PURGE_DELAY: process.env.MIMALLOC_PURGE_DELAY ?? "0",
        NODE_OPTIONS: `${given} ${bounds.join(" ")}`.trim(),
      },
    },
  );
  if (result.status !== 0) {
    process.stderr.write("The build failed; see the messages above.\n");
    process.exit(result.status ?? 1);
  }
  // The embedded database's empty starting point, in a process of its own (scripts/embedded-database.mjs). Without
  // it a first start still works, as PGlite makes the database itself, with more memory.
  const template = spawnSync(process.execPath, ["--liftoff-only", `${root}scripts/embedded-database.mjs`], {
    cwd: root,
    stdio: [0, 2, 2],
  });
  if (template.status !== 0) {
    process.stderr.write("The embedded database's starting point was not packed; a first start will make it.\n");
  }
  writeBuildStamp(root);
  process.stderr.write(`Built in ${Math.round((performance.now() - started) / 1000)} s.\n`);
}

// Memory settings, applied by replacing this process with one started with them (same process id, so supervisors
// and signals are unaffected). Any of them already given (on the command line or in NODE_OPTIONS, MALLOC_ARENA_MAX in
// the environment) is kept.
//
// For the long-running roles: V8 sizes its young generation from the machine's memory (up to 128 MB on a large
// machine, for every process) and grows the old one by up to four times what is live while requests keep coming;
// glibc gives each thread its own allocation arenas. Measured on the web server under load, these held the resident
// memory at about half, for the same requests per second (docs/PERFORMANCE.md).
//
// On the embedded database (no DATABASE_URL), every role: WebAssembly runs on V8's baseline compiler alone. Its
// optimizing compiler took 2 s and 600 MB to compile one function of PostgreSQL's, a second or two after the database
// opened, in every process that opens it: a 1 GiB server cannot afford that spike. Statements run about a quarter
// slower (0.1 ms each), which pages do not show (decision 053). `gc()` is there for the first start, which leaves
// the temporary database that made the new one (250 MB) to be collected (server/db/client.ts).
const V8_FLAGS = ["--max-semi-space-size=8", "--heap-growing-percent=30"];
const longRunning = role === "web" || role === "worker";
const embedded = !process.env.DATABASE_URL;
if ((longRunning || embedded) && !process.env.ATELIER_TUNED && typeof process.execve === "function") {
  const given = `${process.execArgv.join(" ")} ${process.env.NODE_OPTIONS ?? ""}`;
  const wanted = [...(longRunning ? V8_FLAGS : []), ...(embedded ? ["--liftoff-only", "--expose-gc"] : [])];
  // `--liftoff-only` is kept out by `--no-liftoff-only` too: an operator with memory to spare can ask for both tiers
  const flags = wanted.filter((flag) => !given.includes(flag.split("=")[0].replace(/^--/, "")));
  process.execve(
    process.execPath,
    [process.execPath, ...flags, ...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)],
    {
      ...process.env,
      ATELIER_TUNED: "1",
      ...(longRunning ? { MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX || "2" } : {}),
    },
  );
}

// Started by npm (`npm start`, `npm run worker`), this process is npm's child (the scripts `exec` it): stopping npm
// by its process id must stop the server too. npm passes SIGTERM on; a parent gone without a word (SIGKILL) leaves
// this process to another parent, which is noticed here, and it stops as on SIGTERM.
if (process.env.npm_lifecycle_event && (role === "web" || role === "worker")) {
  const parent = Number(process.env.ATELIER_PARENT_PID);
  const check = () => {
    if (process.ppid !== parent) process.kill(process.pid, "SIGTERM");
  };
  setInterval(check, 1000).unref();
}

// V8's compiled code for the server's modules, kept between starts (in the system's temporary folder): a restart
// compiles only what changed.
module.enableCompileCache?.();
const server = await import(pathToFileURL(entry).href);
if (role === "web") await server.start();
else if (role === "worker") await server.runWorker();
else if (role === "migrate") await server.runMigrations();
else if (role === "admin") await server.runAdmin(process.argv.slice(3));
else {
  process.stderr.write(`Unknown role ${role}: expected web, worker, migrate or admin.\n`);
  process.exit(1);
}
