import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseEnv } from "#server/env.ts";
import { connectionBudget } from "./connections.ts";

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), "utf8");

describe("the connections a process opens on PostgreSQL", () => {
  it("adds up the application's, the counters', the job queue's pools and the job queue's listener", () => {
    expect(connectionBudget(10)).toEqual({ app: 10, counters: 3, jobs: 5, listen: 1, total: 19 });
    expect(connectionBudget(1)).toEqual({ app: 1, counters: 2, jobs: 2, listen: 1, total: 6 });
    expect(connectionBudget(200).total).toBe(200 + 50 + 100 + 1);
  });

  it("is the number the operations guide and the README give for the default pool size", () => {
    const { DATABASE_POOL_MAX } = parseEnv({});
    const total = connectionBudget(DATABASE_POOL_MAX).total;
    const guide = /\*\*(\d+) per process with the defaults\*\* \(P = (\d+)\)/.exec(read("docs/OPERATIONS.md"));
    expect(guide, "docs/OPERATIONS.md states the connections per process").not.toBeNull();
    expect(Number(guide![2])).toBe(DATABASE_POOL_MAX);
    expect(Number(guide![1])).toBe(total);
    const readme = /(\d+) connections at most with the default/.exec(read("README.md"));
    expect(Number(readme?.[1])).toBe(total);
  });
});
