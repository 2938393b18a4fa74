import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";
import { DatabaseStartError } from "#server/db/errors.ts";

export interface DataDirLock {
  release(): void;
}

const LOCK_FILE = "atelier.lock";

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The PID of the live process (other than this one) holding the data folder's lock, or null when none does. */
export function dataDirLockOwner(dataDir: string): number | null {
  let owner: number;
  try {
    owner = Number.parseInt(readFileSync(join(dataDir, LOCK_FILE), "utf8"), 10);
  } catch {
    return null;
  }
  return Number.isInteger(owner) && owner !== process.pid && isAlive(owner) ? owner : null;
}

/**
 * The embedded database is single-process: a second instance on the same folder would corrupt it.
 * A lock file holding the owner's PID keeps a second process out; a lock left by a dead process is taken over.
 */
export function acquireDataDirLock(dataDir: string): DataDirLock {
  const path = join(dataDir, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, "wx", 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          try {
            if (readFileSync(path, "utf8") === String(process.pid)) unlinkSync(path);
          } catch {
            // already gone
          }
        },
      };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "EEXIST") {
        throw new DatabaseStartError(`Cannot lock the data folder ${dataDir}: ${(error as Error).message}`);
      }
      const owner = Number.parseInt(readFileSync(path, "utf8"), 10);
      if (Number.isInteger(owner) && owner !== process.pid && isAlive(owner)) {
        throw new DatabaseStartError(
          `The data folder ${dataDir} is in use by another Atelier process (PID ${owner}). Stop it first, or set DATA_DIR to another folder; the embedded database serves one process at a time.`,
        );
      }
      unlinkSync(path);
    }
  }
  throw new DatabaseStartError(`Cannot lock the data folder ${dataDir}`);
}
