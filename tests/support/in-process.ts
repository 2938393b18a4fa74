import { cpSync, rmSync } from "node:fs";
import { eq } from "drizzle-orm";
import pino from "pino";
import { inject } from "vitest";
import { parseEnv } from "#server/env.ts";
import { openRuntime } from "#server/runtime.ts";
import { createApp } from "#server/http/app.ts";
import { user } from "#server/db/schema/index.ts";
import { tempDir, TEST_DATABASE_URL } from "#tests/support/server.ts";
import { createTestDatabase } from "#tests/support/postgres.ts";
import { PASSWORD } from "#tests/support/session.ts";

/**
 * The application in this process, answering through `app.request()` with no socket and no build: its runtime (a
 * copy of the run's migrated template, on PGlite or on the run's PostgreSQL) with the embedded worker, and the HTTP
 * edge in front of it. For the APIs and media; pages need the build and a real server (`startServer`).
 */
export async function openApp(extra: Record<string, string> = {}) {
  const origin = "http://atelier.test";
  const dataDir = tempDir("atelier-app-");
  const postgres = TEST_DATABASE_URL ? await createTestDatabase(inject("postgresTemplate") ?? undefined) : undefined;
  const template = inject("pgliteTemplate");
  if (!postgres && template) cpSync(template, dataDir, { recursive: true });
  const env = parseEnv({
    NODE_ENV: "production",
    DATA_DIR: dataDir,
    SITE_URL: origin,
    LOG_LEVEL: "silent",
    // Loaded by the tests that check it (a worker thread and a model in every test process otherwise).
    IMAGE_CLASSIFIER: "off",
    ...(postgres ? { DATABASE_URL: postgres.url } : {}),
    ...extra,
  });
  const logger = pino({ level: "silent" });
  const runtime = await openRuntime({ env, logger, work: true, role: "web" });
  const app = createApp({
    env,
    logger,
    state: { runtime, draining: false },
    build: { version: "test", id: "test", timestamp: 0 },
    getServerBuild: () => Promise.reject(new Error("pages are not served in process")),
    serveAssets: false,
  });

  /** A request as a browser on the site's pages makes it: same-origin writes, the session cookie, JSON bodies. */
  const call = (
    method: string,
    path: string,
    o: { cookie?: string; body?: unknown; headers?: Record<string, string> } = {},
  ) =>
    app.request(`${origin}${path}`, {
      method,
      headers: {
        ...(o.cookie ? { Cookie: o.cookie } : {}),
        ...(method !== "GET" && method !== "HEAD" ? { Origin: origin, "Sec-Fetch-Site": "same-origin" } : {}),
        ...(o.body !== undefined && !(o.body instanceof FormData) ? { "Content-Type": "application/json" } : {}),
        ...o.headers,
      },
      body: o.body instanceof FormData ? o.body : o.body !== undefined ? JSON.stringify(o.body) : undefined,
    });

  return {
    app,
    origin,
    runtime,
    call,
    /** A confirmed account, signed in: the Cookie header of its session. */
    async signedIn(email: string): Promise<string> {
      await runtime.auth.api.signUpEmail({ body: { name: "Maker", email, password: PASSWORD } });
      await runtime.database.db.update(user).set({ emailVerified: true }).where(eq(user.email, email));
      const response = await runtime.auth.api.signInEmail({
        body: { email, password: PASSWORD },
        asResponse: true,
      });
      if (!response.ok) throw new Error(`signing in as ${email} answered ${response.status}`);
      return response.headers
        .getSetCookie()
        .map((c) => c.split(";")[0])
        .join("; ");
    },
    /** Reads a generation through the internal API until the embedded worker has ended it; its final status. */
    async ended(id: string, cookie: string): Promise<string> {
      for (let i = 0; i < 600; i++) {
        const res = await call("GET", `/api/generations/${id}`, { cookie });
        const { generation } = (await res.json()) as { generation: { status: string } };
        if (!["queued", "processing"].includes(generation.status)) return generation.status;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`generation ${id} did not end`);
    },
    async close() {
      await runtime.close();
      await postgres?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
