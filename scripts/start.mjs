// Starts a process from the server build: `web` (default), `worker`, `migrate` or `admin`.
// Builds first when the build is missing or older than the sources, so a fresh clone needs only `npm start`.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { isBuildStale, writeBuildStamp } from "./build-stamp.mjs";

process.env.NODE_ENV ||= "production";
const root = fileURLToPath(new URL("..", import.meta.url));
const role = process.argv[2] ?? "web";
const entry = `${root}build/server/index.js`;

if (!existsSync(entry) || isBuildStale(root)) {
  process.stdout.write("Building Atelier (the sources changed since the last build)…\n");
  const result = spawnSync("npm", ["run", "build", "--silent"], { cwd: root, stdio: "inherit", env: process.env });
  if (result.status !== 0) {
    process.stderr.write("The build failed; see the messages above.\n");
    process.exit(result.status ?? 1);
  }
  writeBuildStamp(root);
}

const server = await import(pathToFileURL(entry).href);
if (role === "web") await server.start();
else if (role === "worker") await server.runWorker();
else if (role === "migrate") await server.runMigrations();
else if (role === "admin") await server.runAdmin(process.argv.slice(3));
else {
  process.stderr.write(`Unknown role ${role}: expected web, worker, migrate or admin.\n`);
  process.exit(1);
}
