// Writes the embedded database's starting point into the build: an empty PostgreSQL data folder, as PGlite's own
// initdb makes it, packed as a tarball named after PGlite's version. A first start then unpacks it instead of making
// one: PGlite makes a database by running a second PostgreSQL and initdb beside the first, then copying the result,
// which peaked at about 550 MB in a bare process; unpacking peaks at about 240 MB and takes a third of the time
// (decision 053). Run by `npm run build` and by the first start's build, in a process of its own.
import { mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const { version } = JSON.parse(readFileSync(join(root, "node_modules/@electric-sql/pglite/package.json"), "utf8"));
const folder = join(root, "build/embedded-database");
const target = join(folder, `pglite-${version}.tar.gz`);

const { PGlite } = await import("@electric-sql/pglite");
const scratch = mkdtempSync(join(tmpdir(), "atelier-embedded-"));
try {
  const pglite = await PGlite.create(join(scratch, "pglite"));
  const tarball = await pglite.dumpDataDir("gzip");
  await pglite.close();
  mkdirSync(folder, { recursive: true });
  writeFileSync(`${target}.partial`, Buffer.from(await tarball.arrayBuffer()));
  renameSync(`${target}.partial`, target);
  // One PGlite at a time: an older version's tarball is of no use to this one.
  for (const name of readdirSync(folder))
    if (join(folder, name) !== target) rmSync(join(folder, name), { force: true });
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
