import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { providerConnection } from "#server/db/schema/index.ts";
import { secretBox } from "#server/modules/catalog/secret-box.ts";
import { addConnection, changeConnection } from "#server/modules/catalog/edit-connections.ts";
import { CLI_ACTOR } from "#server/modules/audit/record-admin-action.ts";
import { settingFieldsOf, settingsOfForm } from "#app/lib/catalog-admin.server.ts";
import { backends, openEngine } from "#tests/support/backends.ts";

const box = secretBox({ authSecret: "an-auth-secret-of-at-least-32-characters!" });

/** The console's form as a browser posts it. */
function form(fields: Record<string, string>): FormData {
  const data = new FormData();
  for (const [key, value] of Object.entries(fields)) data.set(key, value);
  return data;
}

describe("a connection's settings as the console's form gives them", () => {
  it("reads a pool's servers one a line, numbers as numbers, and a header per server", () => {
    expect(settingFieldsOf("comfyui")).toEqual([
      {
        key: "servers",
        type: "objects",
        required: true,
        properties: [
          { key: "url", type: "text", required: true },
          { key: "weight", type: "number", required: false },
          { key: "maxJobs", type: "number", required: false },
        ],
      },
      { key: "perAccount", type: "number", required: false },
      { key: "headers", type: "secretMap", required: false },
    ]);
    expect(
      settingsOfForm(
        "comfyui",
        form({
          "setting.servers": " http://gpu-a:8188 weight=2 max=3\n\nhttp://gpu-b:8188\n",
          "setting.perAccount": "4",
          "setting.headers": "http://gpu-a:8188 Authorization: Bearer abc-123456\nhttp://gpu-b:8188",
        }),
      ),
    ).toEqual({
      servers: [{ url: "http://gpu-a:8188", weight: 2, maxJobs: 3 }, { url: "http://gpu-b:8188" }],
      perAccount: 4,
      headers: { "http://gpu-a:8188": "Authorization: Bearer abc-123456", "http://gpu-b:8188": null },
    });
    // Blank: no servers (refused by the schema), the cap removed, the headers kept.
    expect(settingsOfForm("comfyui", form({ "setting.servers": "", "setting.perAccount": "" }))).toEqual({
      servers: null,
      perAccount: null,
    });
    // A word that is no number, or no property, is left for the schema to refuse by name.
    expect(settingsOfForm("comfyui", form({ "setting.servers": "http://a:1 weight=two colour=red" }))).toMatchObject({
      servers: [{ url: "http://a:1", weight: "two", colour: "red" }],
    });
  });
});

describe.each(backends)("a ComfyUI pool saved from the console on $name", (backend) => {
  let engine: Awaited<ReturnType<typeof openEngine>>;
  const db = () => engine.handle.db;
  beforeAll(async () => {
    engine = await openEngine(backend);
  });
  afterAll(async () => {
    await engine?.close();
  });

  it("seals each server's header, shows only its last four characters, and changes them one by one", async () => {
    const { id } = await addConnection({
      db: db(),
      box,
      provider: "comfyui",
      input: {
        settings: settingsOfForm(
          "comfyui",
          form({
            "setting.servers": "http://gpu-a:8188 weight=2 max=3\nhttp://gpu-b:8188",
            "setting.perAccount": "3",
            "setting.headers": "http://gpu-a:8188 Authorization: Bearer token-aaaa-1111",
          }),
        ),
      },
      actor: CLI_ACTOR,
    });
    const row = async () => (await db().select().from(providerConnection).where(eq(providerConnection.id, id)))[0]!;
    const added = await row();
    expect(added.settings).toEqual({
      servers: [{ url: "http://gpu-a:8188", weight: 2, maxJobs: 3 }, { url: "http://gpu-b:8188" }],
      perAccount: 3,
    });
    expect(JSON.stringify(added)).not.toContain("token-aaaa");
    expect(added.secretHints).toEqual({ "headers http://gpu-a:8188": "1111" });
    const open = async () => JSON.parse(box.open((await row()).sealedSecrets!)) as Record<string, unknown>;

    // The headers left blank: the sealed one stays.
    await changeConnection({
      db: db(),
      box,
      id,
      input: {
        settings: settingsOfForm(
          "comfyui",
          form({ "setting.servers": "http://gpu-a:8188\nhttp://gpu-b:8188", "setting.perAccount": "" }),
        ),
      },
      actor: CLI_ACTOR,
    });
    expect((await row()).settings).toEqual({ servers: [{ url: "http://gpu-a:8188" }, { url: "http://gpu-b:8188" }] });
    expect(await open()).toEqual({ headers: { "http://gpu-a:8188": "Authorization: Bearer token-aaaa-1111" } });

    // One server's header added, the other's kept; then the first removed by its URL alone.
    const edit = (headers: string) =>
      changeConnection({
        db: db(),
        box,
        id,
        input: {
          settings: settingsOfForm(
            "comfyui",
            form({ "setting.servers": "http://gpu-a:8188\nhttp://gpu-b:8188", "setting.headers": headers }),
          ),
        },
        actor: CLI_ACTOR,
      });
    await edit("http://gpu-b:8188 X-Key: token-bbbb-2222");
    expect(await open()).toEqual({
      headers: {
        "http://gpu-a:8188": "Authorization: Bearer token-aaaa-1111",
        "http://gpu-b:8188": "X-Key: token-bbbb-2222",
      },
    });
    expect((await row()).secretHints).toEqual({
      "headers http://gpu-a:8188": "1111",
      "headers http://gpu-b:8188": "2222",
    });
    await edit("http://gpu-a:8188");
    expect(await open()).toEqual({ headers: { "http://gpu-b:8188": "X-Key: token-bbbb-2222" } });
    expect((await row()).secretHints).toEqual({ "headers http://gpu-b:8188": "2222" });

    // A number that is none is refused by name, and nothing changes.
    await expect(edit("")).resolves.toBe(false);
    await expect(
      changeConnection({
        db: db(),
        box,
        id,
        input: { settings: settingsOfForm("comfyui", form({ "setting.servers": "http://gpu-a:8188 weight=two" })) },
        actor: CLI_ACTOR,
      }),
    ).rejects.toMatchObject({ reason: "invalid", field: "servers.0.weight" });
    expect((await row()).settings).toEqual({ servers: [{ url: "http://gpu-a:8188" }, { url: "http://gpu-b:8188" }] });
  });
});
