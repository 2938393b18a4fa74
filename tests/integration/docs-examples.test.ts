import { execFile } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, ROOT, startServer, waitFor, type TestServer } from "#tests/support/server.ts";
import { pageApi, signedIn } from "#tests/support/session.ts";

const run = promisify(execFile);

/** The fenced code blocks of an English documentation page, in order, with this server's address filled in. */
function examples(slug: string, origin: string): { language: string; code: string }[] {
  const md = readFileSync(join(ROOT, "content/docs/en", `${slug}.md`), "utf8").replaceAll("{{origin}}", origin);
  return [...md.matchAll(/```(\w*)\n([\s\S]*?)```/g)].map((m) => ({ language: m[1]!, code: m[2]! }));
}

/**
 * What a developer does with the documentation: every curl command of the REST API guide, its JavaScript and
 * Python programs, and the webhook page's request and Python signature check, run as written against a server.
 */
describe("the documentation's examples, run as written", () => {
  let server: TestServer;
  let origin: string;
  let key: string;
  let cookie: string;
  let work: string;
  let receiver: http.Server;
  let receiverUrl: string;
  let receiverOrigin: string;
  const received: { headers: http.IncomingHttpHeaders; body: string }[] = [];

  beforeAll(async () => {
    receiver = http.createServer((req, res) => {
      if (req.method === "GET" && req.url === "/photo.png") {
        res.writeHead(200, { "content-type": "image/png" }).end(readFileSync(join(work, "photo.png")));
        return;
      }
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        received.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    receiverOrigin = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    receiverUrl = `${receiverOrigin}/atelier/webhook`;
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    server = await startServer({
      PORT: String(port),
      SITE_URL: origin,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: "on",
      // The guide's image address, served by the local receiver.
      INPUT_URL_ALLOWED_ORIGINS: receiverOrigin,
      // Every example runs with the one key: more than a minute's default allowance when they fall in one window
      API_RATE_LIMIT_PER_MINUTE: "1000",
      API_ACCOUNT_RATE_LIMIT_PER_MINUTE: "1000",
      // …and enough credits for every example's images and videos.
      SIGNUP_BONUS_CREDITS: "500",
    });
    cookie = await signedIn(server, origin, "reader@example.com");
    const created = await pageApi(server, origin)("POST", "/api/keys", cookie, {});
    key = ((await created.json()) as { secret: string }).secret;
    work = mkdtempSync(join(tmpdir(), "atelier-docs-"));
    await sharp({ create: { width: 64, height: 64, channels: 3, background: "#3366aa" } })
      .png()
      .toFile(join(work, "photo.png"));
    await sharp({ create: { width: 64, height: 64, channels: 3, background: "#aa6633" } })
      .png()
      .toFile(join(work, "last.png"));
    // The REST API's mask: white where the image changes (the right half), black where it stays.
    await sharp({ create: { width: 64, height: 64, channels: 3, background: "#000000" } })
      .composite([
        { input: { create: { width: 32, height: 64, channels: 3, background: "#ffffff" } }, left: 32, top: 0 },
      ])
      .png()
      .toFile(join(work, "mask.png"));
  });
  afterAll(async () => {
    await server?.close();
    await new Promise((r) => receiver?.close(r));
    if (work) rmSync(work, { recursive: true, force: true });
  });

  const shell = async (code: string) => {
    const { stdout } = await run("bash", ["-euo", "pipefail", "-c", code], {
      cwd: work,
      env: { ...process.env, ATELIER_API_KEY: key },
    });
    return stdout;
  };
  const settled = async (id: string) => {
    let status = "";
    await waitFor(`generation ${id} to end`, async () => {
      const res = await fetch(`${server.url}/api/v1/generations/${id}`, {
        headers: { Authorization: `Bearer ${key}` },
      });
      status = ((await res.json()) as { status: string }).status;
      return !["queued", "processing"].includes(status);
    });
    return status;
  };

  it("the REST API guide: every curl command, then the JavaScript and the Python program", async () => {
    const blocks = examples("api", origin);
    const bash = blocks.filter((b) => b.language === "bash" && b.code.includes("curl")).map((b) => b.code);
    expect(bash.length).toBe(13);
    const [credits, image, poll, fromFile, video, quote, ...tools] = bash as [string, ...string[]];
    const [inpaint, outpaint, upscale, removeBackground, animate, byAddress, variation] = tools as [
      string,
      ...string[],
    ];

    expect(JSON.parse(await shell(credits))).toMatchObject({ object: "balance", available: expect.any(Number) });
    const made = JSON.parse(await shell(image!)) as { id: string; status: string; aspect_ratio: string };
    expect(made).toMatchObject({ status: "queued", aspect_ratio: "16:9" });
    expect(await settled(made.id)).toBe("succeeded");
    const read = JSON.parse(await shell(poll!.replace("GENERATION_ID", made.id))) as { outputs: unknown[] };
    expect(read.outputs).toHaveLength(1);
    const edited = JSON.parse(await shell(fromFile!)) as { id: string; tool: string };
    expect(edited.tool).toBe("image-to-image");
    expect(await settled(edited.id)).toBe("succeeded");
    const clip = JSON.parse(await shell(video!)) as { id: string; kind: string };
    expect(clip.kind).toBe("video");
    expect(await settled(clip.id)).toBe("succeeded");
    // The quote answers as the guide shows it, with what creating the same request would cost
    expect(JSON.parse(await shell(quote!))).toEqual({
      object: "quote",
      model: "demo-image",
      tool: "text-to-image",
      credits: 2,
    });

    // Each tool's example, as written (the address example's image served by a local server the site trusts).
    const expected: [string, string][] = [
      [inpaint!, "inpaint"],
      [outpaint!, "outpaint"],
      [upscale!, "upscale"],
      [removeBackground!, "remove-background"],
      [animate!, "image-to-video"],
      [byAddress!.replace("https://example.com/photo.png", `${receiverOrigin}/photo.png`), "upscale"],
      [variation!.replace("GENERATION_ID", made.id), "text-to-image"],
    ];
    for (const [command, tool] of expected) {
      const answer = JSON.parse(await shell(command)) as { id: string; tool: string; parent_id: string | null };
      expect(answer.tool, command).toBe(tool);
      expect(await settled(answer.id), command).toBe("succeeded");
      if (command.includes("variation_of")) expect(answer.parent_id).toBe(made.id);
    }

    const js = blocks.find((b) => b.language === "js")!;
    writeFileSync(join(work, "example.mjs"), js.code);
    const node = await run(process.execPath, ["example.mjs"], {
      cwd: work,
      env: { ...process.env, ATELIER_API_KEY: key },
    });
    expect(node.stdout).toMatch(
      new RegExp(`^succeeded \\[\\s*'${origin}/media/[0-9a-f-]+\\.png\\?expires=\\d+&sig=[\\w-]+'\\s*\\]`),
    );

    const python = blocks.find((b) => b.language === "python")!;
    writeFileSync(join(work, "example.py"), python.code);
    const py = await run("python3", ["example.py"], { cwd: work, env: { ...process.env, ATELIER_API_KEY: key } });
    expect(py.stdout).toMatch(
      new RegExp(`^succeeded \\['${origin}/media/[0-9a-f-]+\\.png\\?expires=\\d+&sig=[\\w-]+'\\]`),
    );
  }, 120_000);

  it("the OpenAI-compatible API page: its JavaScript with the official package, its curl commands, and its Python parses", async () => {
    const blocks = examples("openai", origin);
    const js = blocks.filter((b) => b.language === "js");
    expect(js.length).toBe(3);
    // The programs import `openai`: they run from a folder inside the project, where the package is installed.
    const dir = mkdtempSync(join(ROOT, "node_modules", ".docs-openai-"));
    try {
      copyFileSync(join(work, "photo.png"), join(dir, "photo.png"));
      const node = async (name: string, code: string) => {
        writeFileSync(join(dir, name), code);
        return (await run(process.execPath, [name], { cwd: dir, env: { ...process.env, ATELIER_API_KEY: key } }))
          .stdout;
      };
      const first = await node("first.mjs", js[0]!.code);
      expect(first).toContain("tokens:");
      expect(first).toMatch(new RegExp(`${origin}/media/[0-9a-f-]+\\.png\\?expires=\\d+&sig=`));
      expect(first).toMatch(/video: \d+ bytes/);
      await node("edit.mjs", js[1]!.code);
      expect((await sharp(join(dir, "watercolour.png")).metadata()).format).toBe("png");
      // The edit within OpenAI's mask (transparent where it changes) and the video from a first frame, with curl.
      const rgba = Buffer.alloc(64 * 64 * 4);
      for (let i = 0; i < 64 * 64; i++) rgba[i * 4 + 3] = i % 64 < 32 ? 255 : 0;
      await sharp(rgba, { raw: { width: 64, height: 64, channels: 4 } })
        .png()
        .toFile(join(dir, "mask.png"));
      const curls = blocks.filter((b) => b.language === "bash").map((b) => b.code);
      expect(curls).toHaveLength(2);
      const curl = async (code: string) =>
        JSON.parse(
          (
            await run("bash", ["-euo", "pipefail", "-c", code], {
              cwd: dir,
              env: { ...process.env, ATELIER_API_KEY: key },
            })
          ).stdout,
        ) as { data?: { url: string }[]; id?: string; atelier: { generation_id?: string } };
      const masked = await curl(curls[0]!);
      expect(masked.data![0]!.url).toMatch(new RegExp(`^${origin}/media/`));
      const inpainted = await fetch(`${server.url}/api/v1/generations/${masked.atelier.generation_id}`, {
        headers: { Authorization: `Bearer ${key}` },
      });
      expect(((await inpainted.json()) as { tool: string }).tool).toBe("inpaint");
      const started = await curl(curls[1]!);
      expect(await settled(started.id!)).toBe("succeeded");
      const animated = await fetch(`${server.url}/api/v1/generations/${started.id}`, {
        headers: { Authorization: `Bearer ${key}` },
      });
      expect(((await animated.json()) as { tool: string }).tool).toBe("image-to-video");
      // The header option, in a program of its own.
      await node(
        "kite.mjs",
        `import OpenAI from "openai";\nconst client = new OpenAI({ baseURL: "${origin}/v1", apiKey: process.env.ATELIER_API_KEY });\n${js[2]!.code}`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // Python's openai package is not installed here: the program is checked to parse.
    const python = blocks.find((b) => b.language === "python")!;
    writeFileSync(join(work, "openai_example.py"), python.code);
    await run("python3", ["-c", "import ast, sys; ast.parse(open(sys.argv[1]).read())", "openai_example.py"], {
      cwd: work,
    });
  }, 120_000);

  it("the API reference: every operation's curl command gets the answer its operation documents", async () => {
    const doc = (await (await fetch(`${server.url}/api/v1/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    const html = await (await fetch(`${server.url}/docs/api-reference`)).text();
    const unescape = (s: string) =>
      s
        .replaceAll("&quot;", '"')
        .replaceAll("&#x27;", "'")
        .replaceAll("&lt;", "<")
        .replaceAll("&gt;", ">")
        .replaceAll("&amp;", "&");
    // Each operation's section: its method and path as shown, and its example
    const operations = html
      .split('<section class="api-op" id="')
      .slice(1)
      .map((section) => ({
        method: /class="[^"]*api-method[^"]*">(\w+)</.exec(section)?.[1],
        path: /<p class="api-endpoint">.*?<code lang="en">([^<]+)<\/code>/.exec(section)?.[1],
        curl: /<pre class="code-block" data-example="curl"[^>]*><code>([\s\S]*?)<\/code><\/pre>/.exec(section)?.[1],
      }))
      .filter((o) => o.curl !== undefined);
    const documented = Object.values(doc.paths).flatMap((item) => Object.keys(item).filter((k) => k !== "servers"));
    expect(operations).toHaveLength(documented.length);

    // The examples name the document's example generation; each is tried on a fresh one of the reader's own
    const exampleId = "6e1d2b7a-3c1f-4d8e-9a55-0c3b2f1e4d6a";
    expect(html).toContain(exampleId);
    for (const { method, path, curl } of operations) {
      let command = unescape(curl!);
      if (command.includes(exampleId) && path!.startsWith("/v1/videos/")) {
        // The OpenAI-compatible API's video operations, on a finished video of the reader's own.
        const made = await fetch(`${server.url}/v1/videos`, {
          method: "POST",
          headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
          body: JSON.stringify({ model: "demo-video", prompt: "A reference example" }),
        });
        const answer = (await made.json()) as { id: string };
        if (!answer.id) throw new Error(`${made.status} ${JSON.stringify(answer)}`);
        const { id } = answer;
        expect(await settled(id)).toBe("succeeded");
        command = command.replaceAll(exampleId, id);
      } else if (command.includes(exampleId)) {
        const made = await fetch(`${server.url}/api/v1/images`, {
          method: "POST",
          headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
          body: JSON.stringify({ model: "demo-image", prompt: "A reference example" }),
        });
        command = command.replaceAll(exampleId, ((await made.json()) as { id: string }).id);
      }
      const status = Number(await shell(`${command} -s -o /dev/null -w '%{http_code}'`));
      const answers = Object.keys(doc.paths[path!]![method!.toLowerCase()]!.responses);
      expect(answers, `${method} ${path}`).toContain(String(status));
      // Cancelling is refused, as documented, once the demo model has already finished
      const expected = path!.endsWith("/cancel") ? [200, 409] : answers.filter((a) => a.startsWith("2")).map(Number);
      expect(expected, `${method} ${path}`).toContain(status);
    }
  });

  it("the webhooks page: the request with a webhook_url, and the Python check of what arrives", async () => {
    const blocks = examples("webhooks", origin);
    const request = blocks.find((b) => b.language === "bash")!;
    const made = JSON.parse(await shell(request.code.replace("https://example.com/atelier/webhook", receiverUrl))) as {
      id: string;
    };
    await waitFor("the webhook", async () => received.length === 1);
    const [message] = received;
    expect(JSON.parse(message!.body)).toMatchObject({ type: "generation.succeeded", data: { id: made.id } });

    // The signing secret, as the API keys page shows it to its owner
    const secret = await pageApi(server, origin)("GET", "/api/webhooks/secret", cookie);
    const ownerSecret = ((await secret.json()) as { secret: { secret: string } }).secret.secret;

    const python = blocks.find((b) => b.language === "python")!;
    const harness = `${python.code}
import json, sys
data = json.load(sys.stdin)
print(verify(data["body"].encode(), data["headers"]))
print(verify((data["body"] + " ").encode(), data["headers"]))
`;
    writeFileSync(join(work, "verify.py"), harness);
    const child = execFile("python3", ["verify.py"], {
      cwd: work,
      env: { ...process.env, ATELIER_WEBHOOK_SECRET: ownerSecret },
    });
    child.stdin!.end(JSON.stringify({ body: message!.body, headers: message!.headers }));
    let out = "";
    child.stdout!.on("data", (c: Buffer) => (out += c.toString()));
    const code = await new Promise<number>((resolve) => child.on("close", resolve));
    expect(code).toBe(0);
    expect(out.trim().split("\n")).toEqual(["True", "False"]);
  });
});
