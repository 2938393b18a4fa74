import { rmSync } from "node:fs";
import pino from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { parseEnv } from "#server/env.ts";
import { createLocalStorage } from "#server/storage/local.ts";
import {
  agreeOnConfiguration,
  ConfigurationMismatch,
  fingerprintOf,
  forgetSharedSetting,
  readSharedConfig,
  STORAGE_MARKER_KEY,
} from "#server/modules/installation/agree-on-configuration.ts";
import {
  forgetProcess,
  newProcessIdentity,
  otherRunningProcesses,
} from "#server/modules/installation/register-process.ts";
import { backends, migratedDatabase } from "#tests/support/backends.ts";
import { tempDir } from "#tests/support/server.ts";

const silent = pino({ level: "silent" });
const SECRET = "s".repeat(40);

describe.each(backends)("settings every process shares, on $name", (backend) => {
  const db = migratedDatabase(backend);
  const folders: string[] = [];
  const folder = () => {
    const dir = tempDir("atelier-storage-");
    folders.push(dir);
    return dir;
  };
  afterAll(() => {
    for (const dir of folders) rmSync(dir, { recursive: true, force: true });
  });
  const shared = { dir: "" };

  /** One process starting: `shared` true is PostgreSQL's rule (other processes may run), false the embedded one. */
  async function start(vars: Record<string, string>, dir: string, opts: { shared?: boolean } = {}) {
    const me = newProcessIdentity("worker", "test");
    const agreement = await agreeOnConfiguration({
      db: db(),
      env: parseEnv({ PORT: "3000", ...vars }),
      storage: createLocalStorage(dir),
      me,
      shared: opts.shared ?? true,
      logger: silent,
    });
    return { ...agreement, me, stop: () => forgetProcess(db(), me) };
  }
  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => {
        throw new Error("the process was not refused");
      },
      (error: Error) => {
        expect(error).toBeInstanceOf(ConfigurationMismatch);
        return error.message;
      },
    );

  it("records the first process's values and marks its storage", async () => {
    shared.dir = folder();
    const first = await start({ SITE_URL: "https://atelier.example/", AUTH_SECRET: SECRET }, shared.dir);
    const recorded = await readSharedConfig(db());
    expect(recorded.SITE_URL).toEqual({ value: "https://atelier.example", source: "env" });
    expect(recorded.WEBHOOK_ALLOW_PRIVATE_NETWORKS).toEqual({ value: false, source: "default" });
    expect(recorded.AUTH_SECRET).toEqual({ fingerprint: fingerprintOf(SECRET), source: "env" });
    expect(JSON.stringify(recorded)).not.toContain(SECRET);
    const marker = await createLocalStorage(shared.dir).get(STORAGE_MARKER_KEY);
    expect(JSON.parse(await new Response(marker!.body).text())).toMatchObject({ id: recorded.STORAGE!.id });
    expect(first.env.SITE_URL).toBe("https://atelier.example");
    expect(first.authSecret).toBe(SECRET);
    await first.stop();
  });

  it("gives a process that leaves a value unset the recorded one", async () => {
    const web = await start({ SITE_URL: "https://atelier.example", AUTH_SECRET: SECRET }, shared.dir);
    const worker = await start({ AUTH_SECRET: SECRET }, shared.dir);
    expect(worker.env.SITE_URL).toBe("https://atelier.example");
    expect(worker.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS).toBe(false);
    await worker.stop();
    await web.stop();
  });

  it("refuses a process whose values disagree while another runs, naming the variable", async () => {
    const web = await start({ SITE_URL: "https://atelier.example", AUTH_SECRET: SECRET }, shared.dir);
    try {
      expect(await refusal(start({ SITE_URL: "http://localhost:3000", AUTH_SECRET: SECRET }, shared.dir))).toMatch(
        /^SITE_URL is http:\/\/localhost:3000 here, but the other processes on this database \(web|worker on .+\) use https:\/\/atelier\.example\./,
      );
      expect(await refusal(start({ AUTH_SECRET: "t".repeat(40) }, shared.dir))).toMatch(
        /^AUTH_SECRET differs from the one the other processes/,
      );
      expect(await refusal(start({}, shared.dir))).toMatch(/^AUTH_SECRET is not set here, but the other processes/);
      expect(await refusal(start({ AUTH_SECRET: SECRET, WEBHOOK_ALLOW_PRIVATE_NETWORKS: "on" }, shared.dir))).toMatch(
        /^WEBHOOK_ALLOW_PRIVATE_NETWORKS is on here, but the other processes .* use off\./,
      );
      // A refused process leaves nothing behind: not in the running list, the record unchanged.
      expect(await otherRunningProcesses(db(), web.me)).toEqual([]);
      expect((await readSharedConfig(db())).SITE_URL!.value).toBe("https://atelier.example");
    } finally {
      await web.stop();
    }
  });

  it("refuses a process whose storage is another folder, even alone", async () => {
    const elsewhere = folder();
    const message = await refusal(start({ AUTH_SECRET: SECRET }, elsewhere));
    expect(message).toContain(`the folder ${elsewhere}/files, is not the one this installation keeps its files in`);
    expect(message).toContain("Point DATA_DIR (or S3_BUCKET) at the shared storage");
    expect(await createLocalStorage(elsewhere).get(STORAGE_MARKER_KEY)).toBeNull();
  });

  it("lets a process alone change a value, and the next ones follow it", async () => {
    const restarted = await start({ SITE_URL: "https://new.example", AUTH_SECRET: SECRET }, shared.dir);
    expect((await readSharedConfig(db())).SITE_URL).toEqual({ value: "https://new.example", source: "env" });
    const worker = await start({ AUTH_SECRET: SECRET }, shared.dir);
    expect(worker.env.SITE_URL).toBe("https://new.example");
    await worker.stop();
    await restarted.stop();
  });

  it("checks processes starting together one after the other: one records, the other agrees or is refused", async () => {
    const mine = folder();
    await forgetSharedSetting(db(), "STORAGE");
    await forgetSharedSetting(db(), "SITE_URL");
    const results = await Promise.allSettled([
      start({ SITE_URL: "https://a.example", AUTH_SECRET: SECRET }, mine),
      start({ SITE_URL: "https://b.example", AUTH_SECRET: SECRET }, mine),
    ]);
    const started = results.filter((r) => r.status === "fulfilled");
    expect(started).toHaveLength(1);
    expect(results.find((r) => r.status === "rejected")!.reason).toBeInstanceOf(ConfigurationMismatch);
    await (started[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof start>>>).value.stop();
  });

  it("on the embedded database a restart with new values takes them", async () => {
    const dir = (await readSharedConfig(db())).STORAGE ? folders.at(-1)! : shared.dir;
    const alone = await start({ SITE_URL: "https://c.example", AUTH_SECRET: "u".repeat(40) }, dir, { shared: false });
    expect(alone.env.SITE_URL).toBe("https://c.example");
    expect((await readSharedConfig(db())).AUTH_SECRET!.fingerprint).toBe(fingerprintOf("u".repeat(40)));
    const defaulted = await start({ AUTH_SECRET: "u".repeat(40) }, dir, { shared: false });
    expect(defaulted.env.SITE_URL).toBe("https://c.example");
  });
});
