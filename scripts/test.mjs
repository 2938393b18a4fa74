// `npm test`: every check and test suite in turn, then one summary. Exits non-zero when anything failed.
// Each check (type-check, lint, format) counts as one item in the summary beside the tests.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const steps = [
  { name: "type-check", script: "typecheck" },
  { name: "lint", script: "lint" },
  { name: "format", script: "format:check" },
  { name: "unit", project: "unit" },
  { name: "database", project: "database" },
  { name: "integration", project: "integration" },
  { name: "e2e", project: "e2e" },
];

const only = process.argv.slice(2);
const reportDir = mkdtempSync(join(tmpdir(), "atelier-test-report-"));
const rows = [];
const total = { passed: 0, failed: 0, skipped: 0 };
// The failing tests by name, printed again under the summary so that the end of a long log says what failed.
const failures = [];

for (const step of steps) {
  if (only.length > 0 && !only.includes(step.name)) continue;
  process.stdout.write(`\n=== ${step.name} ===\n`);
  if (step.script) {
    const ok = spawnSync("npm", ["run", "--silent", step.script], { stdio: "inherit" }).status === 0;
    total[ok ? "passed" : "failed"] += 1;
    if (!ok) failures.push(`${step.name}: failed`);
    rows.push([step.name, ok ? "ok" : "FAILED"]);
    continue;
  }
  const report = join(reportDir, `${step.project}.json`);
  const run = spawnSync(
    "npx",
    [
      "vitest",
      "run",
      "--project",
      step.project,
      "--reporter=default",
      "--reporter=json",
      `--outputFile.json=${report}`,
    ],
    { stdio: "inherit" },
  );
  let counts;
  try {
    const json = JSON.parse(readFileSync(report, "utf8"));
    counts = {
      passed: json.numPassedTests,
      failed: json.numFailedTests + (json.numFailedTestSuites > 0 && json.numFailedTests === 0 ? 1 : 0),
      skipped: json.numPendingTests + json.numTodoTests,
    };
    for (const file of json.testResults ?? []) {
      const where = file.name.replace(`${process.cwd()}/`, "");
      const failed = (file.assertionResults ?? []).filter((test) => test.status === "failed");
      for (const test of failed) {
        const why = String(test.failureMessages?.[0] ?? "")
          .split("\n")[0]
          .slice(0, 300);
        failures.push(`${step.name}: ${where} > ${test.fullName}${why ? ` (${why})` : ""}`);
      }
      if (failed.length === 0 && file.status === "failed") {
        failures.push(
          `${step.name}: ${where} (${String(file.message ?? "")
            .split("\n")[0]
            .slice(0, 300)})`,
        );
      }
    }
  } catch {
    counts = { passed: 0, failed: 1, skipped: 0 };
  }
  // A runner that failed without a failing test (a crashed setup, say) still counts as a failure.
  if (run.status !== 0 && counts.failed === 0) counts.failed = 1;
  for (const key of Object.keys(total)) total[key] += counts[key];
  rows.push([step.name, `${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`]);
}
rmSync(reportDir, { recursive: true, force: true });

process.stdout.write("\n=== summary ===\n");
for (const [name, result] of rows) process.stdout.write(`${name.padEnd(12)} ${result}\n`);
for (const failure of failures) process.stdout.write(`FAILED ${failure}\n`);
process.stdout.write(`Summary: ${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped\n`);
// CI runs the suites more than once (PGlite, then PostgreSQL) and adds the counts up into one closing line.
if (process.env.TEST_SUMMARY_DIR) {
  const name = process.env.TEST_SUMMARY_NAME || "summary";
  writeFileSync(join(process.env.TEST_SUMMARY_DIR, `${name}.json`), JSON.stringify({ ...total, failures }));
}
process.exit(total.failed > 0 ? 1 : 0);
