import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
// @ts-expect-error plain ESM helper shared with scripts/start.mjs
import { isBuildStale, writeBuildStamp } from "../../scripts/build-stamp.mjs";

/** Builds once before the suites that run the real server, so no test pays for (or races on) a build. */
export default function setup() {
  const root = fileURLToPath(new URL("../..", import.meta.url));
  if (!isBuildStale(root)) return;
  const result = spawnSync("npm", ["run", "build", "--silent"], { cwd: root, stdio: "inherit" });
  if (result.status !== 0) throw new Error("build failed");
  writeBuildStamp(root);
}
