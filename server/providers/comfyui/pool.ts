import type { SystemStats } from "#server/providers/comfyui/types.ts";
import { ComfyPromptRefused, ComfyServerClient, ComfyServerLost } from "#server/providers/comfyui/client.ts";

/** One server of a pool, as a connection's settings give it. */
export interface PoolServer {
  url: string;
  /** Its share of the work: a server of weight 2 takes twice the queue of one of weight 1 before it is passed over. */
  weight: number;
  /** The most prompts it is given at once (running and waiting in its own queue). */
  maxJobs: number;
  /** Sent with every request to it (an auth header a proxy in front of it asks for). */
  headers?: Record<string, string>;
}

/** What the pool knows of a server: whether it answers, and what it said last. */
export interface ServerHealth {
  url: string;
  up: boolean;
  /** The prompts in its queue (running and waiting) at its last answer. */
  queued: number;
  /** Atelier's jobs on it now, from this process. */
  running: number;
  checkedAt: number | null;
  /** Why it left the pool, while it is out. */
  problem?: string;
  stats?: SystemStats;
}

/** No server of the pool could take the job: every one is down, or refused it. */
export class PoolExhausted extends Error {
  override readonly name = "PoolExhausted";
}

/** How long a server that stopped answering stays out before it is asked again. */
const RETRY_DOWN_MS = 5_000;
/** How often a job waiting for room asks the servers' queues again. */
const WAIT_POLL_MS = 500;
/** How long a probe may take. */
const PROBE_TIMEOUT_MS = 5_000;

interface Member {
  server: PoolServer;
  client: ComfyServerClient;
  up: boolean;
  /** When it was last probed or answered. */
  checkedAt: number | null;
  queued: number;
  /** This process's jobs on it, counted from choosing it until they end. */
  running: number;
  problem?: string;
  stats?: SystemStats;
}

export interface PoolRun<T> {
  /** Runs the job on the chosen server; the pool moves it to another when the server is lost. */
  job: (client: ComfyServerClient, server: PoolServer) => Promise<T>;
  signal: AbortSignal;
  /** Called while the job waits for room on a server, with how many of this process's jobs wait before it. */
  onWaiting?: (ahead: number) => void;
}

/**
 * A pool of ComfyUI servers behind one connection. A job goes to the server that answers with the least work per
 * unit of weight and room under its `maxJobs`; while every one is full it waits, in order. A server that fails to
 * answer (or dies mid-job) leaves the pool for a few seconds and its job moves to another; one whose workflow check
 * refuses the prompt (a node or a file it lacks) is passed over for that job. One pool per connection's servers, kept
 * for the process's life, so every job of a process sees the same health and load.
 */
export class ComfyPool {
  private readonly members: Member[];
  private readonly waiting: object[] = [];
  /** Wakes the jobs waiting for their turn: one took a server, or one ended. */
  private readonly wakers = new Set<() => void>();

  constructor(servers: readonly PoolServer[]) {
    this.members = servers.map((server) => ({
      server,
      client: new ComfyServerClient({ url: server.url, headers: server.headers }),
      up: true,
      checkedAt: null,
      queued: 0,
      running: 0,
    }));
  }

  /** Each server's state as the pool knows it now. */
  health(): ServerHealth[] {
    return this.members.map((m) => ({
      url: m.server.url,
      up: m.up,
      queued: m.queued,
      running: m.running,
      checkedAt: m.checkedAt,
      ...(m.problem && { problem: m.problem }),
      ...(m.stats && { stats: m.stats }),
    }));
  }

  /** Asks every server how it is (`/system_stats`) and what it has queued (`/queue`), together. */
  async probe(signal?: AbortSignal): Promise<ServerHealth[]> {
    await Promise.all(this.members.map((m) => this.probeOne(m, signal, true)));
    return this.health();
  }

  /**
   * Whether a job could start now: `room` when a server that answers has room under its `maxJobs` (and no job of
   * this process waits), `full` when every one that answers is full (for `waitMs`, woken as jobs end), `down` when
   * none answers.
   */
  async room(signal: AbortSignal, waitMs = 0): Promise<"room" | "full" | "down"> {
    const until = Date.now() + waitMs;
    for (;;) {
      await Promise.all(this.members.map((m) => this.probeOne(m, signal, false)));
      const alive = this.members.filter((m) => m.up);
      if (alive.length === 0) return "down";
      if (this.waiting.length === 0 && alive.some((m) => load(m) < m.server.maxJobs)) return "room";
      if (Date.now() >= until) return "full";
      await this.nap(signal);
    }
  }

  /** Every server's client, for reads that concern the whole pool (the node types each one has). */
  clients(): Array<{ server: PoolServer; client: ComfyServerClient }> {
    return this.members.map((m) => ({ server: m.server, client: m.client }));
  }

  /**
   * Runs a job on the best server, moving it to another when its server is lost or refuses what it lacks; throws
   * `PoolExhausted` (with the last server's reason) when none is left to try.
   */
  async run<T>({ job, signal, onWaiting }: PoolRun<T>): Promise<T> {
    const tried = new Set<Member>();
    let last: Error | undefined;
    for (;;) {
      const member = await this.acquire(tried, signal, onWaiting);
      if (!member) {
        throw new PoolExhausted(
          last
            ? `no ComfyUI server of the pool could run it: ${last.message}`
            : "no ComfyUI server of the pool answers",
          { cause: last },
        );
      }
      try {
        return await job(member.client, member.server);
      } catch (error) {
        if (signal.aborted) throw error;
        if (error instanceof ComfyServerLost) {
          this.markDown(member, error.message);
        } else if (!(error instanceof ComfyPromptRefused && error.lacking)) {
          throw error;
        }
        tried.add(member);
        last = error as Error;
      } finally {
        member.running -= 1;
        this.wake();
      }
    }
  }

  /** The server for a job: the least loaded with room, or none when every one untried is down. Waits while all are full. */
  private async acquire(
    tried: Set<Member>,
    signal: AbortSignal,
    onWaiting?: (ahead: number) => void,
  ): Promise<Member | undefined> {
    const ticket = {};
    this.waiting.push(ticket);
    try {
      for (;;) {
        signal.throwIfAborted();
        // First come, first served among this process's waiting jobs: a job waits while one before it does.
        if (this.waiting[0] === ticket) {
          const candidates = this.members.filter((m) => !tried.has(m));
          await Promise.all(candidates.map((m) => this.probeOne(m, signal, false)));
          const alive = candidates.filter((m) => m.up);
          if (alive.length === 0) return undefined;
          const open = alive.filter((m) => load(m) < m.server.maxJobs);
          if (open.length > 0) {
            const best = open.reduce((a, b) => (load(b) / b.server.weight < load(a) / a.server.weight ? b : a));
            best.running += 1;
            return best;
          }
        }
        onWaiting?.(this.waiting.indexOf(ticket));
        await this.nap(signal);
      }
    } finally {
      this.waiting.splice(this.waiting.indexOf(ticket), 1);
      this.wake();
    }
  }

  /**
   * Reads a server's queue (and, when asked, its stats). An up server is read at every choice, since other processes
   * and people share it; a down one only every few seconds.
   */
  private async probeOne(m: Member, signal: AbortSignal | undefined, withStats: boolean): Promise<void> {
    if (!m.up && m.checkedAt !== null && Date.now() - m.checkedAt < RETRY_DOWN_MS && !withStats) return;
    const timeout = AbortSignal.timeout(PROBE_TIMEOUT_MS);
    const both = signal ? AbortSignal.any([signal, timeout]) : timeout;
    try {
      const [queue, stats] = await Promise.all([
        m.client.queueState(both),
        withStats || !m.up ? m.client.systemStats(both) : Promise.resolve(m.stats),
      ]);
      m.up = true;
      m.problem = undefined;
      m.queued = queue.running + queue.pending;
      if (stats) m.stats = stats;
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      this.markDown(m, error instanceof Error ? error.message : String(error));
    } finally {
      m.checkedAt = Date.now();
    }
  }

  /** Waits until another job takes a server or ends, or a moment passes (a server's own queue may have moved). */
  private async nap(signal: AbortSignal): Promise<void> {
    let waker!: () => void;
    const woken = new Promise<void>((resolve) => (waker = resolve));
    this.wakers.add(waker);
    try {
      await Promise.race([woken, delay(WAIT_POLL_MS, signal)]);
    } finally {
      this.wakers.delete(waker);
    }
  }

  private wake() {
    for (const waker of this.wakers) waker();
  }

  private markDown(m: Member, problem: string) {
    m.up = false;
    m.problem = problem;
    m.checkedAt = Date.now();
  }
}

/** A server's work as far as anyone knows: its own queue, or this process's jobs on it when more (not queued yet). */
function load(m: Member): number {
  return Math.max(m.queued, m.running);
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", stop);
      resolve();
    }, ms);
    const stop = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", stop, { once: true });
  });
}

const pools = new Map<string, ComfyPool>();

/** The process's pool for a connection's servers (the same servers, the same pool). */
export function poolFor(servers: readonly PoolServer[]): ComfyPool {
  const key = JSON.stringify(servers.map((s) => [s.url, s.weight, s.maxJobs, s.headers ?? null]));
  let pool = pools.get(key);
  if (!pool) {
    pool = new ComfyPool(servers);
    pools.set(key, pool);
  }
  return pool;
}
