// The server bundle's single entry: scripts/start.mjs picks the process role.
export { start } from "#server/main.ts";
export { runWorker } from "#server/jobs/main.ts";
export { runMigrations } from "#server/db/main.ts";
export { runAdmin } from "#server/admin/main.ts";
