import { hostname } from "node:os";
import { randomUUID } from "node:crypto";
import { and, eq, gt, lt, ne, sql } from "drizzle-orm";
import type { Logger } from "pino";
import type { Db } from "#server/db/client.ts";
import { atelierProcess } from "#server/db/schema/index.ts";

/** How often a running process says it is alive, and after how long without a word it counts as gone. */
export const HEARTBEAT_SECONDS = 10;
export const ALIVE_SECONDS = 30;
/** Rows of processes gone this long are removed when a process starts. */
const FORGET_AFTER = sql`interval '1 day'`;

export type ProcessRole = "web" | "worker";

export interface ProcessIdentity {
  id: string;
  role: ProcessRole;
  host: string;
  pid: number;
  build: string;
}

export function newProcessIdentity(role: ProcessRole, build: string): ProcessIdentity {
  return { id: randomUUID(), role, host: hostname(), pid: process.pid, build };
}

/** Records this process as running (inside the caller's transaction, so others starting see it at once). */
export async function registerProcess(db: Db, me: ProcessIdentity): Promise<void> {
  await db.delete(atelierProcess).where(lt(atelierProcess.seenAt, sql`now() - ${FORGET_AFTER}`));
  await db
    .insert(atelierProcess)
    .values({ id: me.id, role: me.role, host: me.host, pid: me.pid, build: me.build })
    .onConflictDoUpdate({ target: atelierProcess.id, set: { seenAt: sql`now()` } });
}

export interface RunningProcess {
  role: string;
  host: string;
  pid: number;
  secondsSinceSeen: number;
}

/** The other processes that said they were alive within the last ALIVE_SECONDS. */
export async function otherRunningProcesses(db: Db, me: Pick<ProcessIdentity, "id">): Promise<RunningProcess[]> {
  const rows = await db
    .select({
      role: atelierProcess.role,
      host: atelierProcess.host,
      pid: atelierProcess.pid,
      secondsSinceSeen: sql<number>`extract(epoch from now() - ${atelierProcess.seenAt})::float8`,
    })
    .from(atelierProcess)
    .where(
      and(
        ne(atelierProcess.id, me.id),
        gt(atelierProcess.seenAt, sql`now() - make_interval(secs => ${ALIVE_SECONDS})`),
      ),
    )
    .orderBy(atelierProcess.startedAt);
  return rows.map((r) => ({ ...r, secondsSinceSeen: Math.round(Number(r.secondsSinceSeen)) }));
}

/**
 * Keeps this process's row fresh every HEARTBEAT_SECONDS (writing it again if it was removed while the process was
 * paused); stop() removes the row on a clean shutdown.
 */
export function keepProcessAlive(db: Db, me: ProcessIdentity, logger: Logger) {
  const beat = async () => {
    try {
      const updated = await db
        .update(atelierProcess)
        .set({ seenAt: sql`now()` })
        .where(eq(atelierProcess.id, me.id))
        .returning({ id: atelierProcess.id });
      if (updated.length === 0) await registerProcess(db, me);
    } catch (error) {
      logger.warn({ err: (error as Error).message }, "could not record that this process is alive");
    }
  };
  const timer = setInterval(() => void beat(), HEARTBEAT_SECONDS * 1000);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await forgetProcess(db, me);
    },
  };
}

/** Removes this process's row, when it stops or could not start. */
export async function forgetProcess(db: Db, me: Pick<ProcessIdentity, "id">): Promise<void> {
  await db
    .delete(atelierProcess)
    .where(eq(atelierProcess.id, me.id))
    .catch(() => undefined);
}

/** "web on host-a (PID 12)", for messages that name who disagrees. */
export function describeProcess(p: Pick<RunningProcess, "role" | "host" | "pid">): string {
  return `${p.role} on ${p.host} (PID ${p.pid})`;
}
