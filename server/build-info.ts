import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "#server/paths.ts";

export interface BuildInfo {
  version: string;
  id: string;
  timestamp: number;
}

/** Written by the build into build/client/build.json; in development the build is "dev". */
export function readBuildInfo(): BuildInfo {
  try {
    return JSON.parse(readFileSync(join(ROOT, "build/client/build.json"), "utf8")) as BuildInfo;
  } catch {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string };
    return { version: pkg.version, id: "dev", timestamp: 0 };
  }
}
