import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  freePort,
  runRole,
  startServer,
  tempDir,
  TEST_DATABASE_URL,
  waitFor,
  type TestServer,
  serverDataDir,
} from "#tests/support/server.ts";
import { createTestDatabase } from "#tests/support/postgres.ts";
import { pageApi, signedIn } from "#tests/support/session.ts";
import { startFakeFal, type FakeFal } from "#tests/fakes/fal.ts";
import { startFakeOpenAIChat, type FakeOpenAIChat } from "#tests/fakes/openai-chat.ts";
import { readStream } from "#tests/support/chat-stream.ts";

/** A change made by one process is seen by every other within this time (the catalog's promise). */
const WITHIN_MS = 10_000;

interface Listed {
  id: string;
  kind: string;
  name: string;
  offered: boolean;
  source: string;
  price: { credits: number; unit: string };
  bindings: { provider: string; connection?: string; model: string }[];
}

/** The operator's command line, as `npm run admin -- …` runs it, with the environment it is given. */
async function admin(env: Record<string, string>, ...args: string[]) {
  const run = runRole("admin", env, args);
  const code = await run.exited;
  return { code, output: run.output().trim() };
}

/** The command's standard output only (what `> file` would keep): the JSON of `--json` and `export`. */
async function adminJson<T>(env: Record<string, string>, ...args: string[]): Promise<T> {
  const run = runRole("admin", env, args);
  let out = "";
  run.proc.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  const code = await run.exited;
  if (code !== 0) throw new Error(`${args.join(" ")} exited with ${code}:\n${run.output()}`);
  return JSON.parse(out) as T;
}

const decode = (s: string) =>
  s
    .replaceAll("&amp;", "&")
    .replaceAll("&quot;", '"')
    .replaceAll("&#x27;", "'")
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .trim();

/** Every list of models a visitor, a member and a program can read on one server, as sets of ids. */
function lists(server: TestServer, origin: string, cookie: string, apiKey: string) {
  const call = pageApi(server, origin);
  const get = async (path: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${server.url}${path}`, { headers });
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
    return res;
  };
  const bearer = { Authorization: `Bearer ${apiKey}` };
  const page = async (path: string) => (await get(path, { Cookie: cookie })).text();
  return {
    async studio() {
      const res = await call("GET", "/api/models", cookie);
      return new Set(((await res.json()) as { models: { id: string }[] }).models.map((m) => m.id));
    },
    async publicApi() {
      const body = (await (await get("/api/v1/models", bearer)).json()) as { data: { id: string }[] };
      return new Set(body.data.map((m) => m.id));
    },
    async openAiApi() {
      const body = (await (await get("/v1/models", bearer)).json()) as {
        data: { id: string; atelier: { kind: string } }[];
      };
      return new Set(body.data.filter((m) => m.atelier.kind !== "chat").map((m) => m.id));
    },
    studioPage: () => page("/dashboard/image/create/text-to-image"),
    /** The names in the pricing page's table of models. */
    async pricing() {
      const html = await (await get("/pricing")).text();
      return new Set([...html.matchAll(/<tr><th scope="row">([^<]+)/g)].map((m) => decode(m[1]!)));
    },
    /** The names in the home page's list of models. */
    async home() {
      const html = await (await get("/")).text();
      return new Set([...html.matchAll(/<span class="home-model-name">([^<]+)<\/span>/g)].map((m) => decode(m[1]!)));
    },
    /** The names of the models the status page says are offered (every state but "not configured"). */
    async status() {
      const html = await (await get("/test")).text();
      const rows = [...html.matchAll(/<tr><th scope="row">([^<]+)<span[^>]*>[^<]*<\/span><\/th>(.*?)<\/tr>/g)];
      if (rows.length === 0) throw new Error("no models on the status page");
      return new Set(rows.filter((r) => !/status-badge status-not_configured/.test(r[2]!)).map((r) => decode(r[1]!)));
    },
  };
}

describe.skipIf(!TEST_DATABASE_URL)("the catalog on two web processes sharing PostgreSQL", () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let primary: FakeFal;
  let backup: FakeFal;
  let chat: FakeOpenAIChat;
  /** The fal connection added first. */
  let connection = "";
  const dataDir = serverDataDir();
  let first: TestServer;
  let second: TestServer;
  let origin: string;
  let cookie: string;
  let apiKey: string;
  let view: ReturnType<typeof lists>;
  const KEY = "fal-key-primary-0000-f4c3";
  const BACKUP_KEY = "fal-key-backup-1111-b4ck";
  let cli: Record<string, string>;

  beforeAll(async () => {
    [primary, backup, chat] = await Promise.all([
      startFakeFal({ key: KEY }),
      startFakeFal({ key: BACKUP_KEY }),
      startFakeOpenAIChat(),
    ]);
    db = await createTestDatabase();
    cli = { DATABASE_URL: db.url, DATA_DIR: dataDir };
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    const site = {
      DATABASE_URL: db.url,
      DATA_DIR: dataDir,
      SITE_URL: origin,
      // Polled every few tenths of a second: more than a minute's default allowance.
      PAGE_RATE_LIMIT_PER_MINUTE: "0",
      API_RATE_LIMIT_PER_MINUTE: "1000",
      API_ACCOUNT_RATE_LIMIT_PER_MINUTE: "1000",
      SIGNUP_BONUS_CREDITS: "500",
    };
    // The first process is given a provider key of its own (an OpenAI one, unreachable and never used); the second
    // none: whatever it offers from fal comes from the connection added on the command line.
    [first, second] = await Promise.all([
      startServer({ ...site, PORT: String(await freePort()), OPENAI_API_KEY: "sk-unused-0000" }),
      startServer({ ...site, PORT: String(port) }),
    ]);
    cookie = await signedIn(second, origin, "maker@example.com");
    const created = await pageApi(second, origin)("POST", "/api/keys", cookie, {});
    apiKey = ((await created.json()) as { secret: string }).secret;
    view = lists(second, origin, cookie, apiKey);
  });
  afterAll(async () => {
    await Promise.all([first?.close(), second?.close()]);
    await Promise.all([primary?.close(), backup?.close(), chat?.close()]);
    await db?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /**
   * Waits until `id` is (or is no longer) offered in every list of the second process, all of them within the
   * catalog's promised time from now.
   */
  const offeredEverywhere = async (id: string, name: string, offered: boolean) => {
    const anId = new RegExp(`[^\\w.-]${id.replaceAll(".", "\\.")}[^\\w.-]`);
    const checks: Record<string, () => Promise<boolean>> = {
      "/api/models": async () => (await view.studio()).has(id),
      "/api/v1/models": async () => (await view.publicApi()).has(id),
      "/v1/models": async () => (await view.openAiApi()).has(id),
      "the image studio": async () => anId.test(await view.studioPage()),
      "the pricing page": async () => (await view.pricing()).has(name),
      "the status page": async () => (await view.status()).has(name),
    };
    const deadline = Date.now() + WITHIN_MS;
    let waiting = Object.keys(checks);
    for (;;) {
      const results = await Promise.all(waiting.map(async (where) => (await checks[where]!()) === offered));
      waiting = waiting.filter((_, i) => !results[i]);
      if (waiting.length === 0) return;
      if (Date.now() > deadline)
        throw new Error(`${id} still ${offered ? "not offered" : "offered"} after 10 s on ${waiting.join(", ")}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  };

  it("serves a fal connection added on the command line, with no restart, its key sealed", async () => {
    expect((await view.studio()).has("flux-schnell")).toBe(false);
    const added = await admin(
      cli,
      "connections",
      "add",
      "fal",
      "--key",
      KEY,
      "--base-url",
      primary.url,
      "--allow-private-network",
    );
    expect(added.code, added.output).toBe(0);
    connection = added.output.split("\n")[0]!;

    await offeredEverywhere("flux-schnell", "FLUX.1 [schnell]", true);

    // An image made there runs on the fake with the key.
    const res = await pageApi(second, origin)("POST", "/api/generations", cookie, {
      tool: "text-to-image",
      model: "flux-schnell",
      prompt: "a lighthouse at dusk",
    });
    expect(res.status).toBe(201);
    const { id } = ((await res.json()) as { generation: { id: string } }).generation;
    await waitFor("the image to be made", async () => {
      const g = (await (await pageApi(second, origin)("GET", `/api/generations/${id}`, cookie)).json()) as {
        generation: { status: string };
      };
      if (g.generation.status === "failed") throw new Error("failed");
      return g.generation.status === "succeeded";
    });
    expect(primary.requests.some((r) => r.path === "/fal-ai/flux/schnell")).toBe(true);

    // The key is nowhere in the database as it was given: not in the connection's row, not in the audit log.
    const rows = await db.query("select * from provider_connection");
    expect(rows.map((r) => r.id)).toEqual([connection]);
    expect(JSON.stringify(rows)).not.toContain(KEY);
    expect(JSON.stringify(rows)).toContain("f4c3");
    const audit = await db.query("select * from admin_action");
    expect(audit.some((a) => JSON.stringify(a).includes(connection))).toBe(true);
    expect(JSON.stringify(audit)).not.toContain(KEY);
    // Nor anywhere else in the database: every text and JSON column of every table.
    const columns = await db.query<{ table_name: string; column_name: string }>(
      `select table_name, column_name from information_schema.columns
        where table_schema = 'public' and data_type in ('text', 'character varying', 'json', 'jsonb')`,
    );
    expect(columns.length).toBeGreaterThan(20);
    for (const { table_name: table, column_name: column } of columns) {
      const [hit] = await db.query<{ n: number }>(
        `select count(*)::int as n from "${table}" where "${column}"::text like $1`,
        [`%${KEY}%`],
      );
      expect(hit!.n, `${table}.${column}`).toBe(0);
    }
  });

  /** The model the chat's image tool uses on the second process, as a chat model calling it is told. */
  const chatsImageModel = async () => {
    const call = pageApi(second, origin);
    const created = await call("POST", "/api/chat/conversations", cookie, { model: "gpt-4o-mini" });
    expect(created.status).toBe(201);
    const conversation = ((await created.json()) as { conversation: { id: string } }).conversation.id;
    await readStream(await call("POST", `/api/chat/conversations/${conversation}/messages`, cookie, { text: "a fox" }));
    const saved = (await (await call("GET", `/api/chat/conversations/${conversation}`, cookie)).json()) as {
      messages: { role: string; parts: { type: string; output?: { status: string; model?: string } }[] }[];
    };
    const part = saved.messages
      .filter((m) => m.role === "assistant")
      .flatMap((m) => m.parts)
      .find((p) => p.type === "tool-generate_image");
    expect(part?.output?.status, JSON.stringify(saved)).toMatch(/^(started|awaiting_confirmation)$/);
    return part!.output!.model;
  };

  it("offers an added model everywhere on the second process, the chat's tools included, and takes it out everywhere when disabled", async () => {
    // A chat model that calls the studio's image tool, on an OpenAI connection added too.
    const openai = await admin(
      cli,
      "connections",
      "add",
      "openai",
      "--key",
      "sk-chat-0000-c4a7",
      "--base-url",
      chat.apiUrl,
      "--allow-private-network",
    );
    expect(openai.code, openai.output).toBe(0);
    chat.toolCall = (body) =>
      body.messages.at(-1)?.role === "tool" ? null : { name: "generate_image", arguments: '{"prompt":"a fox"}' };

    // Read from fal's schema; named apart from the built-in model of the same endpoint.
    const added = await admin(
      cli,
      "models",
      "add",
      "fal:fal-ai/flux-pro/v1.1",
      "--credits",
      "5",
      "--name",
      "Added FLUX pro",
      "--enable",
    );
    expect(added.code, added.output).toBe(0);
    const id = added.output.split("\n")[0]!;
    expect(id).toBe("flux-pro-v1.1");
    // The chat's image tool takes the first model offered for it: this one, placed first.
    const first = await admin(cli, "models", "set", id, "position=0");
    expect(first.code, first.output).toBe(0);
    await offeredEverywhere(id, "Added FLUX pro", true);
    await waitFor(
      "the added model to come first on the second process",
      async () => [...(await view.studio())][0] === id,
      { timeoutMs: WITHIN_MS, intervalMs: 200 },
    );
    expect(await chatsImageModel()).toBe("Added FLUX pro");

    const disabled = await admin(cli, "models", "disable", id);
    expect(disabled.code, disabled.output).toBe(0);
    await offeredEverywhere(id, "Added FLUX pro", false);
    expect(await chatsImageModel()).not.toBe("Added FLUX pro");
    chat.toolCall = null;
  });

  it("fails over to a second connection of the same provider when the first one fails", async () => {
    const added = await admin(
      cli,
      "connections",
      "add",
      "fal",
      "--id",
      "fal-backup",
      "--key",
      BACKUP_KEY,
      "--base-url",
      backup.url,
      "--allow-private-network",
    );
    expect(added.code, added.output).toBe(0);
    primary.failRate = 1;
    primary.failStatus = 503;
    try {
      let id = "";
      await waitFor(
        "an image made on the backup connection",
        async () => {
          const res = await pageApi(second, origin)("POST", "/api/generations", cookie, {
            tool: "text-to-image",
            model: "flux-schnell",
            prompt: `a harbour in fog ${Date.now()}`,
          });
          id = ((await res.json()) as { generation: { id: string } }).generation.id;
          await waitFor("the image to end", async () => {
            const g = (await (await pageApi(second, origin)("GET", `/api/generations/${id}`, cookie)).json()) as {
              generation: { status: string };
            };
            return g.generation.status === "succeeded" || g.generation.status === "failed";
          });
          const [row] = await db.query<{ status: string }>("select status from generation where id = $1", [id]);
          return row!.status === "succeeded";
        },
        { timeoutMs: WITHIN_MS * 3, intervalMs: 500 },
      );
      const attempts = await db.query<{ binding: number; provider: string; outcome: string }>(
        "select binding, provider, outcome from generation_attempt where generation_id = $1 order by id",
        [id],
      );
      const [snapshot] = await db.query<{ snapshot: { bindings: { connection: string }[] } }>(
        "select model_snapshot as snapshot from generation where id = $1",
        [id],
      );
      const served = attempts.map((a) => ({
        connection: snapshot!.snapshot.bindings[a.binding]!.connection,
        outcome: a.outcome,
      }));
      expect(served).toEqual([
        { connection, outcome: "failed" },
        { connection: "fal-backup", outcome: "succeeded" },
      ]);
      expect(backup.requests.some((r) => r.path === "/fal-ai/flux/schnell")).toBe(true);

      // The console's page of the generation says which connection each call went to.
      const granted = await admin(cli, "grant", "maker@example.com");
      expect(granted.code, granted.output).toBe(0);
      const page = await fetch(`${second.url}/user/admin/generations/${id}`, { headers: { Cookie: cookie } });
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toContain(`${connection} (fal) · fal-ai/flux/schnell`);
      expect(html).toContain("fal-backup (fal) · fal-ai/flux/schnell");
      // …and which one served it.
      expect(html).toMatch(/Provider<\/span><span class="ant-descriptions-item-content">fal-backup \(fal\) · /);
    } finally {
      primary.failRate = 0;
    }
  });
});

describe("the catalog's file and lists on the embedded database", () => {
  const dirA = tempDir();
  const dirB = tempDir();
  const work = tempDir();
  let fal: FakeFal;
  let server: TestServer;
  let cookie: string;
  let apiKey: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    fal = await startFakeFal();
    env = { FAL_KEY: "fal-env-key-5555", FAL_BASE_URL: fal.url };
    server = await startServer({ ...env, DATA_DIR: dirA, PAGE_RATE_LIMIT_PER_MINUTE: "0" });
    cookie = await signedIn(server, server.url, "lister@example.com");
    apiKey = ((await (await pageApi(server, server.url)("POST", "/api/keys", cookie, {})).json()) as { secret: string })
      .secret;
    // Through the running server (the command line hands each command to it).
    for (const args of [
      ["models", "add", "fal:fal-ai/flux-pro/v1.1", "--credits", "5", "--enable"],
      ["models", "set", "flux-schnell", "price.credits=3"],
      ["models", "disable", "flux-dev"],
    ]) {
      const done = await admin({ ...env, DATA_DIR: dirA }, ...args);
      expect(done.code, done.output).toBe(0);
    }
  });
  afterAll(async () => {
    await server?.close();
    await fal?.close();
    for (const dir of [dirA, dirB, work]) rmSync(dir, { recursive: true, force: true });
  });

  it("every list of models offers the same ones", async () => {
    const view = lists(server, server.url, cookie, apiKey);
    const catalog = await adminJson<Listed[]>({ ...env, DATA_DIR: dirA }, "models", "list", "--json");
    const offered = catalog.filter((m) => m.offered && m.kind !== "chat");
    const ids = new Set(offered.map((m) => m.id));
    const names = new Set(offered.map((m) => m.name));
    expect(ids.has("flux-pro-v1.1")).toBe(true);
    expect(ids.has("flux-dev")).toBe(false);
    expect(ids.has("flux-schnell")).toBe(true);
    expect(await view.studio()).toEqual(ids);
    expect(await view.publicApi()).toEqual(ids);
    expect(await view.openAiApi()).toEqual(ids);
    expect(await view.pricing()).toEqual(names);
    expect(await view.home()).toEqual(names);
    expect(await view.status()).toEqual(names);
  });

  it("exports a catalog that a fresh installation imports to the same; a wrong model is refused whole", async () => {
    const exported = await adminJson<Record<string, unknown>[]>({ ...env, DATA_DIR: dirA }, "models", "export");
    const file = join(work, "catalog.json");
    writeFileSync(file, JSON.stringify(exported, null, 2));

    // A fresh installation, its server not running: the command line opens the database itself.
    const fresh = { ...env, DATA_DIR: dirB };
    const before = await adminJson<unknown[]>(fresh, "models", "export");
    expect(before).not.toEqual(exported);
    const imported = await admin(fresh, "models", "import", file);
    expect(imported.code, imported.output).toBe(0);
    expect(await adminJson<unknown[]>(fresh, "models", "export")).toEqual(exported);

    // The 4th model with a negative price: refused with a line naming it and the field; nothing changes.
    const wrong = structuredClone(exported);
    const fourth = wrong[3] as { id: string; price: { credits: number }; name: string };
    fourth.price.credits = -2;
    (wrong[0] as { name: string }).name = "Renamed before the wrong one";
    const wrongFile = join(work, "wrong.json");
    writeFileSync(wrongFile, JSON.stringify(wrong, null, 2));
    const refused = await admin(fresh, "models", "import", wrongFile);
    expect(refused.code).toBe(1);
    expect(refused.output).toMatch(new RegExp(`model 4 \\(${fourth.id.replaceAll(".", "\\.")}\\).*price`));
    expect(await adminJson<unknown[]>(fresh, "models", "export")).toEqual(exported);
    expect(readFileSync(file, "utf8")).toBe(JSON.stringify(exported, null, 2));
  });
});
