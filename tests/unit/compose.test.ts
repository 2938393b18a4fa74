import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { parseEnv } from "#server/env.ts";
import { ROOT } from "#server/paths.ts";

interface Service {
  image?: string;
  command?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
  stop_grace_period?: string;
  healthcheck?: { test?: string[]; disable?: boolean };
}
interface ComposeFile {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
}

const read = (file: string) => parse(readFileSync(join(ROOT, file), "utf8"), { merge: true }) as ComposeFile;

/** Compose's rule for `-f a -f b`: mappings merge key by key (environment, depends_on), the rest is replaced. */
function merged(base: ComposeFile, over: ComposeFile): ComposeFile {
  const services = { ...base.services };
  for (const [name, service] of Object.entries(over.services)) {
    const was = services[name] ?? {};
    services[name] = {
      ...was,
      ...service,
      environment: { ...was.environment, ...service.environment },
      depends_on: { ...was.depends_on, ...service.depends_on },
    };
  }
  return { services, volumes: { ...base.volumes, ...over.volumes } };
}

const atelierServices = (file: ComposeFile) =>
  Object.entries(file.services).filter(([, s]) => s.image === "atelier:latest");

const seconds = (duration: string) => Number(/^(\d+)s$/.exec(duration)![1]);

describe.each([
  { name: "compose.yaml", file: () => read("compose.yaml") },
  { name: "compose.yaml with compose.s3.yaml", file: () => merged(read("compose.yaml"), read("compose.s3.yaml")) },
])("$name runs one installation", ({ name, file }) => {
  const compose = file();
  const services = atelierServices(compose);
  const [app, worker, migrate] = ["app", "worker", "migrate"].map((n) => compose.services[n]!);

  it("has a web process, workers and a migration step that the others wait for", () => {
    expect(services.map(([n]) => n).sort()).toEqual(["app", "migrate", "worker"]);
    expect(migrate!.command).toEqual(["node", "scripts/start.mjs", "migrate"]);
    expect(worker!.command).toEqual(["node", "scripts/start.mjs", "worker"]);
    for (const service of [app!, worker!]) {
      expect(service.depends_on!.migrate).toEqual({ condition: "service_completed_successfully" });
    }
    expect(app!.environment!.WORKER).toBe("off");
  });

  it("gives every Atelier container the same database and storage", () => {
    const shared = (service: Service) => ({
      database: service.environment!.DATABASE_URL,
      s3: Object.fromEntries(Object.entries(service.environment!).filter(([k]) => k.startsWith("S3_"))),
      data: service.volumes!.find((v) => v.endsWith(":/data")),
    });
    const first = shared(services[0]![1]);
    expect(first.database).toMatch(/^postgres:\/\//);
    // A named volume, declared at the top: every container (and every scaled worker) mounts the same one.
    expect(first.data).toBe("atelier-data:/data");
    expect(compose.volumes).toHaveProperty("atelier-data");
    if (name.includes("s3")) {
      expect(first.s3).toMatchObject({ S3_BUCKET: "atelier", S3_ENDPOINT: "http://minio:9000" });
      expect(compose.services.app!.depends_on!.bucket).toEqual({ condition: "service_completed_successfully" });
    }
    for (const [, service] of services) expect(shared(service)).toEqual(first);
  });

  it("sets the site's settings once, on the web process, for the workers to take from the database", () => {
    expect(app!.environment!.SITE_URL).toBeDefined();
    for (const variable of ["SITE_URL", "AUTH_SECRET", "WEBHOOK_ALLOW_PRIVATE_NETWORKS"]) {
      expect(worker!.environment![variable]).toBeUndefined();
    }
  });

  it("lets a container finish its delay, its requests and its jobs before it is killed", () => {
    const defaults = parseEnv({});
    const needed = defaults.SHUTDOWN_DELAY_SECONDS + 2 * defaults.SHUTDOWN_TIMEOUT_SECONDS;
    for (const [, service] of services) expect(seconds(service.stop_grace_period!)).toBeGreaterThan(needed);
  });

  it("checks a worker's health on the port it serves it", () => {
    const port = worker!.environment!.WORKER_METRICS_PORT;
    expect(port).toMatch(/^\d+$/);
    expect(worker!.healthcheck!.test!.join(" ")).toContain(`127.0.0.1:${port}/healthz`);
  });
});
