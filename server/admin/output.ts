import type { Db } from "#server/db/client.ts";
import type { ProcessIdentity } from "#server/modules/installation/register-process.ts";
import type { Env } from "#server/env.ts";
import type { ModelRegistry } from "#server/modules/catalog/model-registry.ts";
import type { SecretBox } from "#server/modules/catalog/secret-box.ts";

/** The catalog a command reads and changes: the models' registry (read from the database) and the key box. */
export interface CatalogAccess {
  env: Env;
  models: ModelRegistry;
  secrets: SecretBox;
}

/** What a command says and how it ends: printed and used as the exit code by the command line. */
export interface AdminOutput {
  stdout: string;
  stderr: string;
  code: number;
}

/** A command's output; `usage` asks for the usage text after its stderr. */
export type CommandOutput = AdminOutput & { usage?: boolean };

/** What a command may use besides its arguments. */
export interface AdminContext {
  /**
   * The database, migrated. A command checks its arguments before asking for it: a mistyped command line then needs
   * no database at all (the command line opens it only when asked; a running server hands over its own).
   */
  db(): Promise<Db>;
  /** The folder the command line was started in: relative paths among the arguments are read from there. */
  cwd: string;
  /** The running server this command runs in, when the command line handed it over (the embedded database). */
  server?: ProcessIdentity;
  /** The catalog, read again from the database (asked for only by the commands that need it). */
  catalog?(): Promise<CatalogAccess>;
}

/** One command of `npm run admin -- <command> …`, an entry of `ADMIN_COMMANDS` (server/admin/commands.ts). */
export interface AdminCommand {
  /** Its lines in the usage text, each indented by two spaces, the description from the 28th column. */
  usage: string;
  run(ctx: AdminContext, args: string[]): Promise<CommandOutput>;
}

/** Done: `stdout` for what scripts read, `stderr` for what only a person needs. */
export const ok = (stdout: string, stderr = ""): CommandOutput => ({ stdout, stderr, code: 0 });
/** Refused or failed (exit code 1); `stderr` ends with a newline. */
export const refused = (stderr: string): CommandOutput => ({ stdout: "", stderr, code: 1 });
/** Refused with a one-line reason, followed by the usage text. */
export const refusedWithUsage = (message?: string): CommandOutput => ({
  stdout: "",
  stderr: message === undefined ? "" : `${message}\n`,
  code: 1,
  usage: true,
});
