import { randomBytes } from "node:crypto";
import { createServer, connect, type Server, type Socket } from "node:net";
import pg from "pg";
import { TEST_DATABASE_URL } from "#tests/support/server.ts";

/**
 * A fresh database on the test PostgreSQL server, dropped by `drop()`: empty, or a copy of `template` (a database
 * no one is connected to).
 */
export async function createTestDatabase(template?: string) {
  if (!TEST_DATABASE_URL) throw new Error("TEST_DATABASE_URL is not set");
  const name = `atelier_test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        await admin.query(`create database ${name}${template ? ` template ${template}` : ""}`);
        break;
      } catch (error) {
        // Two copies of one template made at the same moment: PostgreSQL refuses the second while the first runs.
        const busy = (error as { code?: string }).code === "55006";
        if (!busy || attempt === 20) throw error;
        await new Promise((r) => setTimeout(r, 50 * attempt));
      }
    }
  } finally {
    await admin.end();
  }
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async query<T extends pg.QueryResultRow = pg.QueryResultRow>(text: string, params: unknown[] = []) {
      const client = new pg.Client({ connectionString: url.toString() });
      await client.connect();
      try {
        return (await client.query<T>(text, params)).rows;
      } finally {
        await client.end();
      }
    },
    async drop() {
      const c = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

/**
 * A TCP proxy in front of PostgreSQL that the test can cut and restore, to play a database that goes away
 * and comes back without touching the real server.
 */
export async function createDbProxy(target: string) {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  let up = false;
  const server: Server = createServer((client) => {
    if (!up) {
      client.destroy();
      return;
    }
    const upstream = connect(Number(port || 5432), hostname);
    sockets.add(client).add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on("error", drop).on("close", drop);
    upstream.on("error", drop).on("close", drop);
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const address = server.address();
  const proxyPort = typeof address === "object" && address ? address.port : 0;
  return {
    /** The database URL with the proxy's address in place of the server's. */
    urlFor(databaseUrl: string) {
      const u = new URL(databaseUrl);
      u.hostname = "127.0.0.1";
      u.port = String(proxyPort);
      return u.toString();
    },
    up() {
      up = true;
    },
    down() {
      up = false;
      for (const s of sockets) s.destroy();
      sockets.clear();
    },
    close() {
      this.down();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}
