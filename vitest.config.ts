import { readdirSync, readFileSync } from "node:fs";
import { defineConfig } from "vitest/config";

/**
 * CI's second pass runs the database and integration suites again on PostgreSQL (`TEST_POSTGRES_ONLY`): there, the
 * integration files that never read `TEST_DATABASE_URL` (they run the same on both passes: configuration, operator
 * commands, locales, shutdown…) are left out, as their first pass ran them.
 */
const integrationFiles = process.env.TEST_POSTGRES_ONLY
  ? readdirSync("tests/integration")
      .filter((name) => name.endsWith(".test.ts"))
      .map((name) => `tests/integration/${name}`)
      .filter((file) => /TEST_DATABASE_URL|createTestDatabase/.test(readFileSync(file, "utf8")))
  : ["tests/integration/**/*.test.ts"];

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "unit",
          include: ["{app,server,common,config,scripts}/**/*.test.{ts,tsx}", "tests/unit/**/*.test.ts"],
          environment: "node",
        },
      },
      {
        // The use cases against a real database, with no server and no build: each test opens a copy of a
        // migrated template (PGlite, and PostgreSQL when the run has one).
        test: {
          name: "database",
          include: ["tests/database/**/*.test.ts"],
          globalSetup: ["tests/support/templates.ts"],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          fileParallelism: true,
          maxWorkers: 2,
        },
      },
      {
        test: {
          name: "integration",
          include: integrationFiles,
          globalSetup: ["tests/support/build.ts", "tests/support/templates.ts"],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          fileParallelism: true,
          maxWorkers: 2,
        },
      },
      {
        test: {
          name: "e2e",
          include: ["tests/e2e/**/*.test.ts"],
          globalSetup: ["tests/support/build.ts", "tests/support/templates.ts"],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          // A page's answer on two busy cores (two browsers, two servers and their workers) can take seconds: a
          // poll waits as long as a locator does, and returns as soon as it holds.
          expect: { poll: { timeout: 15_000 } },
          fileParallelism: true,
          maxWorkers: 2,
        },
      },
    ],
  },
});
