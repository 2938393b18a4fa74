import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import sharp from "sharp";
import {
  freePort,
  runRole,
  startServer,
  tempDir,
  TEST_DATABASE_URL,
  waitFor,
  type RunningProcess,
  type TestServer,
} from "#tests/support/server.ts";
import { createTestDatabase } from "#tests/support/postgres.ts";
import { nextMail } from "#tests/support/outbox.ts";
import { pageApi, signedIn as signUp, uploadImage } from "#tests/support/session.ts";
import { S3_TEST, startFakeS3, type FakeS3 } from "#tests/fakes/s3.ts";
import { startBalancer, steadyLoad } from "#tests/support/balancer.ts";

interface Generation {
  id: string;
  status: string;
  tool: string;
  credits_charged: number | null;
  outputs: { url: string }[];
  input_image: { url: string } | null;
}

/**
 * The documented scaled-out installation, run as an operator would: two web processes (WORKER=off) and two
 * standalone workers on one PostgreSQL database, with one storage every process shares (a folder all of them mount,
 * or an S3 bucket). Only the web processes are given the site's settings; the workers are given the database and
 * the storage and take the rest from the database.
 */
describe.skipIf(!TEST_DATABASE_URL).each([{ storage: "a shared folder" }, { storage: "an S3 bucket" }])(
  "scaled out on PostgreSQL with $storage",
  ({ storage }) => {
    const onS3 = storage === "an S3 bucket";
    let db: Awaited<ReturnType<typeof createTestDatabase>>;
    let s3: FakeS3 | undefined;
    let origin: string;
    const webs: TestServer[] = [];
    const workers: RunningProcess[] = [];
    const folders: string[] = [];
    const sharedFolder = tempDir();
    folders.push(sharedFolder);
    let receiver: Server;
    let receiverUrl: string;
    const received: { type: string; data: Generation }[] = [];

    /** Where a process keeps its files: the folder every process mounts, or its own folder and the bucket. */
    const storageEnv = (): Record<string, string> => {
      if (!onS3) return { DATA_DIR: sharedFolder };
      const own = tempDir();
      folders.push(own);
      return {
        DATA_DIR: own,
        S3_BUCKET: S3_TEST.bucket,
        S3_ENDPOINT: s3!.url,
        S3_REGION: S3_TEST.region,
        S3_ACCESS_KEY_ID: S3_TEST.accessKeyId,
        S3_SECRET_ACCESS_KEY: S3_TEST.secretAccessKey,
      };
    };
    const workerEnv = () => ({ DATABASE_URL: db.url, ...storageEnv() });
    const metricsPorts: number[] = [];
    const startWorker = async () => {
      const port = await freePort();
      metricsPorts.push(port);
      const worker = runRole("worker", { ...workerEnv(), WORKER_METRICS_PORT: String(port) });
      workers.push(worker);
      await waitFor("a worker to start", async () => worker.output().includes("worker started"), {
        output: worker.output,
      });
      return worker;
    };

    /** What the web processes are given: the database, the site's settings and a pre-stop delay for the balancer. */
    const siteEnv = () => ({
      DATABASE_URL: db.url,
      WORKER: "off",
      SITE_URL: origin,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: "on",
      SHUTDOWN_DELAY_SECONDS: "2",
      PAGE_RATE_LIMIT_PER_MINUTE: "0",
    });
    const webEnvs: Record<string, string>[] = [];

    beforeAll(async () => {
      db = await createTestDatabase();
      if (onS3) s3 = await startFakeS3();
      receiver = createServer((req, res) => {
        let body = "";
        req.on("data", (d: Buffer) => (body += d.toString()));
        req.on("end", () => {
          received.push(JSON.parse(body) as { type: string; data: Generation });
          res.writeHead(204).end();
        });
      });
      await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
      receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;

      const port = await freePort();
      origin = `http://127.0.0.1:${port}`;
      webEnvs.push({ ...siteEnv(), PORT: String(port), ...storageEnv() });
      webEnvs.push({ ...siteEnv(), PORT: String(await freePort()), ...storageEnv() });
      for (const env of webEnvs) webs.push(await startServer(env));
      await startWorker();
      await startWorker();
    });
    afterAll(async () => {
      await Promise.all([...workers.map((w) => w.stop()), ...webs.map((w) => w.close())]);
      receiver?.close();
      await s3?.close();
      await db?.drop();
      for (const dir of folders) rmSync(dir, { recursive: true, force: true });
    });

    /** A message in the outbox that every process shares, here in the bucket. */
    async function mailInBucket(email: string): Promise<{ link: string }> {
      const find = () =>
        [...s3!.objects.entries()]
          .filter(([key]) => key.startsWith("outbox/") && key.endsWith(".json"))
          .map(([, o]) => JSON.parse(o.body.toString("utf8")) as { to: string; link: string })
          .find((m) => m.to === email);
      await waitFor(`an e-mail to ${email} in the bucket`, async () => find() !== undefined);
      return find()!;
    }

    /** Signs up through one web process; the confirmation mail is sent by whichever worker took the job. */
    const signedIn = (web: TestServer, email: string) =>
      signUp(web, origin, email, onS3 ? mailInBucket : (to) => nextMail(sharedFolder, to));

    it("refuses a worker whose storage is not the shared one, naming the variable", async () => {
      const other = onS3 ? await startFakeS3() : undefined;
      const own = tempDir();
      folders.push(own);
      try {
        const run = runRole("worker", {
          DATABASE_URL: db.url,
          DATA_DIR: own,
          ...(other
            ? {
                S3_BUCKET: S3_TEST.bucket,
                S3_ENDPOINT: other.url,
                S3_ACCESS_KEY_ID: S3_TEST.accessKeyId,
                S3_SECRET_ACCESS_KEY: S3_TEST.secretAccessKey,
              }
            : {}),
        });
        expect(await run.exited).toBe(1);
        expect(run.output()).toContain("is not the one this installation keeps its files in");
        expect(run.output()).toContain(onS3 ? "Point S3_BUCKET and S3_ENDPOINT" : "Point DATA_DIR (or S3_BUCKET)");
        expect(run.output()).not.toContain("worker started");
      } finally {
        await other?.close();
      }
    });

    it("refuses a worker with another SITE_URL or another AUTH_SECRET, and starts one that leaves them unset", async () => {
      const elsewhere = runRole("worker", { ...workerEnv(), SITE_URL: "https://elsewhere.example" });
      expect(await elsewhere.exited).toBe(1);
      expect(elsewhere.output()).toMatch(
        new RegExp(
          `^SITE_URL is https://elsewhere\\.example here, but the other processes on this database \\(.+\\) use ${origin.replace(/\./g, "\\.")}\\.`,
          "m",
        ),
      );
      const secret = runRole("worker", { ...workerEnv(), AUTH_SECRET: "another-secret-".repeat(3) });
      expect(await secret.exited).toBe(1);
      expect(secret.output()).toMatch(/^AUTH_SECRET differs from the one the other processes on this database/m);
      const admin = runRole("admin", { DATABASE_URL: db.url }, ["config"]);
      expect(await admin.exited).toBe(0);
      expect(admin.output()).toContain(`SITE_URL                        ${origin}`);
      expect(admin.output()).toMatch(/Running: (web|worker) on .+ \(PID \d+\), seen \d+ s ago; .*;.*;/);
    });

    it("fails a job whose input vanished from the storage and returns its credits, without running it", async () => {
      const [a, b] = webs as [TestServer, TestServer];
      const cookie = await signedIn(a, `vanished-${onS3 ? "s3" : "disk"}@example.com`);
      const inputId = await uploadImage(b, origin, cookie);
      const [row] = await db.query<{ storage_key: string }>("select storage_key from asset where id = $1", [inputId]);
      if (onS3) s3!.objects.delete(row!.storage_key);
      else rmSync(join(sharedFolder, "files", row!.storage_key));
      const submitted = await pageApi(a, origin)("POST", "/api/generations", cookie, {
        tool: "image-to-image",
        model: "demo-image",
        prompt: "The same in watercolour",
        inputAssetId: inputId,
      });
      expect(submitted.status).toBe(201);
      const { generation } = (await submitted.json()) as { generation: { id: string } };
      const read = async () =>
        (
          (await (
            await fetch(`${b.url}/api/generations/${generation.id}`, { headers: { Cookie: cookie } })
          ).json()) as {
            generation: { status: string; creditsCharged: number | null; error: { code: string } | null };
          }
        ).generation;
      await waitFor("the job to end", async () => !["queued", "processing"].includes((await read()).status), {
        output: () => workers.map((w) => w.output()).join("\n"),
      });
      expect(await read()).toMatchObject({ status: "failed", error: { code: "input_unavailable" } });
      const entries = await db.query<{ kind: string; amount: string }>(
        "select kind, amount::text from credit_entry where hold_id = (select hold_id from generation where id = $1) order by id",
        [generation.id],
      );
      expect(entries.map((e) => e.kind)).toEqual(["hold", "release"]);
      const calls = await db.query("select id from generation_attempt where generation_id = $1", [generation.id]);
      expect(calls).toHaveLength(0);
    });

    it("runs an upload made through one web process on a worker, and both web processes serve the result and the worker's signed links", async () => {
      const [a, b] = webs as [TestServer, TestServer];
      const cookie = await signedIn(a, `maker-${onS3 ? "s3" : "disk"}@example.com`);
      const created = await pageApi(a, origin)("POST", "/api/keys", cookie, { name: "scaled" });
      expect(created.status).toBe(201);
      const { secret } = (await created.json()) as { secret: string };

      const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: "#3366cc" } })
        .png()
        .toBuffer();
      const form = new FormData();
      form.set("model", "demo-image");
      form.set("prompt", "The same in watercolour");
      form.set("webhook_url", receiverUrl);
      form.set("image", new Blob([new Uint8Array(png)], { type: "image/png" }), "input.png");
      const submitted = await fetch(`${b.url}/api/v1/images`, {
        method: "POST",
        headers: { Authorization: `Bearer ${secret}` },
        body: form,
      });
      expect(submitted.status).toBe(201);
      const { id } = (await submitted.json()) as Generation;

      await waitFor("the webhook of the ended job", async () => received.some((r) => r.data.id === id), {
        output: () => workers.map((w) => w.output()).join("\n"),
      });
      const hook = received.find((r) => r.data.id === id)!;
      expect(hook.type).toBe("generation.succeeded");
      expect(hook.data).toMatchObject({ status: "succeeded", tool: "image-to-image" });
      expect(hook.data.input_image).not.toBeNull();

      // The links the worker signed for the webhook open on either web process, without a session.
      const links = [...hook.data.outputs.map((o) => o.url), hook.data.input_image!.url];
      for (const link of links) {
        expect(link.startsWith(`${origin}/`)).toBe(true);
        const bodies = await Promise.all(
          webs.map(async (web) => {
            const res = await fetch(link.replace(origin, web.url));
            expect(res.status, `${link} on ${web.url}`).toBe(200);
            return Buffer.from(await res.arrayBuffer());
          }),
        );
        expect(bodies[0]!.equals(bodies[1]!)).toBe(true);
      }
      // The input the worker read is the uploaded image, not a stand-in.
      const input = await fetch(hook.data.input_image!.url.replace(origin, a.url));
      const meta = await sharp(Buffer.from(await input.arrayBuffer())).metadata();
      expect([meta.width, meta.height]).toEqual([64, 48]);
    });

    it("shows the installation's jobs in the metrics of every web process and worker", async () => {
      /** A series' value in a Prometheus text answer. */
      const value = (text: string, series: string) =>
        Number(
          text
            .split("\n")
            .find((line) => line.startsWith(`${series} `))
            ?.split(" ")[1] ?? NaN,
        );
      const finished = 'atelier_jobs_finished_total{queue="generation.run",outcome="completed"}';
      const answers = await Promise.all([
        ...webs.map((w) => fetch(`${w.url}/metrics`).then((r) => r.text())),
        ...metricsPorts.map((p) => fetch(`http://127.0.0.1:${p}/metrics`).then((r) => r.text())),
      ]);
      // Two generations ran (the one whose input vanished ended its job too); every process reports the same.
      for (const text of answers) {
        expect(value(text, finished)).toBeGreaterThanOrEqual(2);
        expect(value(text, finished)).toBe(value(answers[0]!, finished));
        expect(value(text, 'atelier_job_duration_seconds_count{queue="generation.run"}')).toBeGreaterThanOrEqual(2);
        expect(text).toMatch(/^job_queue_depth\{queue="generation\.run",state="queued"\} 0$/m);
      }
      // The web processes ran no job; the workers did, and count their own.
      for (const text of answers.slice(0, 2)) expect(text).not.toContain("jobs_processed_total{");
      const own = answers
        .slice(2)
        .map((text) => value(text, 'jobs_processed_total{queue="generation.run",outcome="completed"}') || 0);
      expect(own.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(2);
      for (const port of metricsPorts) {
        expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
      }
    });

    it("restarts both web processes one after the other under a steady load, cutting no request", async () => {
      const balancer = await startBalancer(webs.map((w) => w.url));
      try {
        expect(balancer.ready()).toHaveLength(2);
        const load = steadyLoad(balancer.url, ["/pricing", "/api/v1/openapi.json", "/healthz", "/docs"], 4);
        for (const i of [0, 1] as const) {
          const before = load.result.requests;
          const old = webs[i]!;
          old.proc.kill("SIGTERM");
          expect(await old.exited).toBe(0);
          webs[i] = await startServer(webEnvs[i]!);
          await waitFor("the balancer to route to the restarted process", async () => balancer.ready().length === 2);
          await waitFor("more requests", async () => load.result.requests > before + 50);
        }
        const result = await load.stop();
        expect({ cut: balancer.stats.cut, noBackend: balancer.stats.noBackend, failed: result.failed }).toEqual({
          cut: 0,
          noBackend: 0,
          failed: 0,
        });
        expect(result.byStatus).toEqual({ 200: result.requests });
        expect(result.requests).toBeGreaterThan(200);
      } finally {
        await balancer.close();
      }
    }, 180_000);
  },
);
