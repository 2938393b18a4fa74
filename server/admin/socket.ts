import { chmodSync, lstatSync, unlinkSync } from "node:fs";
import { connect, createServer, type Socket } from "node:net";
import { join } from "node:path";
import type { Logger } from "pino";
import { z } from "zod";
import type { Db } from "#server/db/client.ts";
import type { ProcessIdentity } from "#server/modules/installation/register-process.ts";
import { runAdminCommand, type AdminContext, type AdminOutput } from "#server/admin/commands.ts";

/**
 * The embedded database serves one process, so while the server runs, the command line hands its command to the
 * server through this socket in the data folder, and the server runs it with its own database
 * (docs/decisions/035-admin-commands-through-the-running-server.md).
 *
 * The protocol: the command line writes one line of JSON, `{"args":["grant","you@example.com"],"cwd":"/srv"}`, and
 * the server answers one line, `{"stdout":"…","stderr":"…","code":0}`, then closes the connection.
 */
export const ADMIN_SOCKET_NAME = "atelier-admin.sock";

export function adminSocketPath(dataDir: string): string {
  return join(dataDir, ADMIN_SOCKET_NAME);
}

/** How long a command may run in the server before the command line is told it did not finish. */
export const ADMIN_COMMAND_TIMEOUT_MS = 60_000;
/** A request longer than this is refused (a command line is a few hundred bytes). */
const MAX_REQUEST_BYTES = 1024 * 1024;

const requestSchema = z.object({ args: z.array(z.string()), cwd: z.string() });
const answerSchema = z.object({ stdout: z.string(), stderr: z.string(), code: z.number().int() });

export interface AdminSocketOptions {
  dataDir: string;
  db: Db;
  /** The server itself, as `config` lists it among the running processes. */
  server: ProcessIdentity;
  logger: Logger;
  /** The server's own catalog (models, connections and the box that seals their keys). */
  catalog?: AdminContext["catalog"];
  /** Called after every command, to read again what the server keeps in memory from the database. */
  after: () => Promise<void>;
  timeoutMs?: number;
  /** The commands to run; the command line's own unless a test gives others. */
  run?: (ctx: AdminContext, args: string[]) => Promise<AdminOutput>;
}

export interface AdminSocket {
  path: string;
  /** Stops accepting commands, waits for those running (each within its time limit) and removes the socket. */
  close(): Promise<void>;
}

function removeSocketFile(path: string) {
  try {
    // Only a socket: anything else at that path is not ours to delete (listening then fails and says so).
    if (lstatSync(path).isSocket()) unlinkSync(path);
  } catch {
    // not there
  }
}

/**
 * Listens for the command line's commands on `DATA_DIR/atelier-admin.sock`, a socket only its owner can connect to
 * (mode 0600). A socket left by a process that did not stop cleanly is replaced. Resolves null (and logs why) when
 * the socket cannot be made: the server runs on, and the command line then says the data folder is in use.
 */
export async function listenForAdminCommands(options: AdminSocketOptions): Promise<AdminSocket | null> {
  const { db, server: me, logger, after } = options;
  const run = options.run ?? runAdminCommand;
  const timeoutMs = options.timeoutMs ?? ADMIN_COMMAND_TIMEOUT_MS;
  const path = adminSocketPath(options.dataDir);
  const running = new Set<Promise<void>>();

  const execute = async (args: string[], cwd: string): Promise<AdminOutput> => {
    const ctx: AdminContext = { db: () => Promise.resolve(db), cwd, server: me, catalog: options.catalog };
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<AdminOutput>((resolve) => {
      timer = setTimeout(
        () =>
          resolve({
            stdout: "",
            stderr: `The command did not finish within ${Math.ceil(timeoutMs / 1000)} s; it may still complete in the server. Check its effect before running it again.\n`,
            code: 1,
          }),
        timeoutMs,
      );
    });
    const done = run(ctx, args)
      .catch((error: Error): AdminOutput => {
        logger.error({ err: error, command: args[0] }, "admin command failed");
        return { stdout: "", stderr: `The command failed: ${error.message}\n`, code: 1 };
      })
      .then(async (output) => {
        // Before answering, so that what the command changed is what the server shows once the command line returns
        // (and after a command that failed halfway or answered too late, too).
        await after().catch((error: Error) =>
          logger.warn({ err: error.message }, "not read again after an admin command"),
        );
        return output;
      });
    try {
      return await Promise.race([done, timedOut]);
    } finally {
      clearTimeout(timer);
    }
  };

  const answer = (socket: Socket, output: AdminOutput) => {
    if (!socket.destroyed) socket.end(`${JSON.stringify(output)}\n`);
  };

  const handle = (socket: Socket) => {
    let buffered = "";
    let started = false;
    socket.setEncoding("utf8");
    socket.on("error", () => undefined);
    socket.on("data", (chunk: string) => {
      if (started) return;
      buffered += chunk;
      const end = buffered.indexOf("\n");
      if (end === -1) {
        if (buffered.length > MAX_REQUEST_BYTES) {
          started = true;
          answer(socket, { stdout: "", stderr: "The request is too long.\n", code: 1 });
        }
        return;
      }
      started = true;
      let request: z.infer<typeof requestSchema>;
      try {
        request = requestSchema.parse(JSON.parse(buffered.slice(0, end)));
      } catch {
        answer(socket, { stdout: "", stderr: 'Expected one line of JSON: {"args":[…],"cwd":"…"}.\n', code: 1 });
        return;
      }
      logger.info({ command: request.args[0] }, "admin command from the command line");
      const work = execute(request.args, request.cwd).then((output) => answer(socket, output));
      running.add(work);
      void work.finally(() => running.delete(work));
    });
  };

  removeSocketFile(path);
  const server = createServer(handle);
  const listening = new Promise<boolean>((resolve) => {
    server.once("listening", () => resolve(true));
    server.once("error", (error) => {
      logger.warn(
        { err: error.message, path },
        "admin commands cannot reach this server: the command line needs it stopped",
      );
      resolve(false);
    });
  });
  // The socket file is made by listen() itself, with the process's umask: only the owner may connect from the start.
  const umask = process.umask(0o177);
  try {
    server.listen(path);
  } finally {
    process.umask(umask);
  }
  if (!(await listening)) return null;
  chmodSync(path, 0o600);
  server.on("error", (error) => logger.warn({ err: error.message }, "admin command socket error"));

  let closing: Promise<void> | undefined;
  return {
    path,
    close() {
      closing ??= (async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        await Promise.allSettled([...running]);
        await closed;
        removeSocketFile(path);
      })();
      return closing;
    },
  };
}

/**
 * Sends a command to the server listening at `path`. Resolves null when nothing listens there (no socket, or one
 * left by a process that is gone), so that the command line can run the command itself.
 */
export function sendAdminCommand(
  path: string,
  request: z.infer<typeof requestSchema>,
  timeoutMs = ADMIN_COMMAND_TIMEOUT_MS + 30_000,
): Promise<AdminOutput | null> {
  return new Promise((resolve) => {
    let connected = false;
    let received = "";
    const lost = (reason: string): AdminOutput => ({
      stdout: "",
      stderr: `The server ${reason} before answering; the command may or may not have been applied.\n`,
      code: 1,
    });
    const socket = connect(path);
    socket.setEncoding("utf8");
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(lost(`did not answer within ${Math.round(timeoutMs / 1000)} s`));
    }, timeoutMs);
    const finish = (result: AdminOutput | null) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    socket.on("connect", () => {
      connected = true;
      socket.write(`${JSON.stringify(request)}\n`);
    });
    socket.on("data", (chunk: string) => (received += chunk));
    socket.on("end", () => {
      const parsed = answerSchema.safeParse(
        (() => {
          try {
            return JSON.parse(received);
          } catch {
            return undefined;
          }
        })(),
      );
      finish(parsed.success ? parsed.data : lost("closed the connection"));
    });
    socket.on("error", (error) => finish(connected ? lost(`lost the connection (${error.message})`) : null));
  });
}
