import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPglite } from "#server/db/client.ts";
import { tempDir } from "#tests/support/server.ts";

const folders: string[] = [];
/** A temporary folder, removed after the file's tests. */
function folder(prefix: string): string {
  const dir = tempDir(prefix);
  folders.push(dir);
  return dir;
}

/** A logger whose lines are kept, to see what the opening said. */
function listening() {
  const lines: { level: number; msg: string }[] = [];
  const logger = pino({ level: "info" }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { logger, lines };
}

/*
 * A new embedded database is unpacked from the tarball the build packs (scripts/embedded-database.mjs) instead of
 * being made by a second PostgreSQL and initdb: it must be the same empty database, survive a restart, and a damaged
 * tarball must never keep an installation from starting. PGlite only: the PostgreSQL pass leaves it out.
 */
describe.skipIf(Boolean(process.env.TEST_POSTGRES_ONLY))("a new embedded database from the build's tarball", () => {
  let tarball: string;

  beforeAll(async () => {
    // The tarball as the build makes it: PGlite's own empty database, dumped.
    const made = await openPglite(folder("atelier-made-"), pino({ level: "silent" }), { template: null });
    const dump = await made.pglite.dumpDataDir("gzip");
    await made.close();
    tarball = join(folder("atelier-tarball-"), "pglite.tar.gz");
    writeFileSync(tarball, Buffer.from(await dump.arrayBuffer()));
  }, 120_000);

  afterAll(() => {
    for (const dir of folders) rmSync(dir, { recursive: true, force: true });
  });

  it("is an empty PostgreSQL that keeps what is written across a restart", async () => {
    const unpacked = folder("atelier-unpacked-");
    const { logger, lines } = listening();
    const first = await openPglite(unpacked, logger, { template: tarball });
    const tables = await first.pglite.query<{ n: number }>(
      "select count(*)::int as n from pg_tables where schemaname = 'public'",
    );
    expect(tables.rows[0]!.n).toBe(0);
    await first.pglite.exec("create table kept (note text); insert into kept values ('written before the restart')");
    await first.close();
    expect(lines.some((l) => l.level >= 40)).toBe(false);

    // Opened again, the folder is a database: the tarball is not unpacked over it, even a damaged one.
    const damaged = join(folder("atelier-damaged-"), "pglite.tar.gz");
    writeFileSync(damaged, "not a tarball");
    const again = await openPglite(unpacked, pino({ level: "silent" }), { template: damaged });
    const kept = await again.pglite.query<{ note: string }>("select note from kept");
    expect(kept.rows).toEqual([{ note: "written before the restart" }]);
    await again.close();
  }, 120_000);

  it("is made by PGlite, with a warning, when the tarball is damaged", async () => {
    const damaged = join(folder("atelier-damaged-"), "pglite.tar.gz");
    writeFileSync(damaged, Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 1, 2, 3, 4]));
    const { logger, lines } = listening();
    const handle = await openPglite(folder("atelier-fallback-"), logger, { template: damaged });
    const answer = await handle.pglite.query<{ one: number }>("select 1 as one");
    expect(answer.rows).toEqual([{ one: 1 }]);
    await handle.close();
    expect(lines.find((l) => l.level === 40)?.msg).toBe(
      "the build's empty database could not be unpacked; making one instead",
    );
  }, 120_000);
});
