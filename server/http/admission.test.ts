import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Admission } from "#server/http/admission.ts";

describe("admission of the requests that make the process work", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("works as many as it may at once; the next wait and take the turns given back, first come first served", async () => {
    const admission = new Admission({ maxConcurrent: 2, maxWaitMs: 500 });
    expect(admission.enter(0)).toBe(true);
    expect(admission.enter(0)).toBe(true);
    const order: string[] = [];
    const third = Promise.resolve(admission.enter(0)).then((ok) => order.push(`third ${ok}`));
    const fourth = Promise.resolve(admission.enter(0)).then((ok) => order.push(`fourth ${ok}`));
    expect(admission.inProgress).toBe(2);
    expect(admission.waiting).toBe(2);
    admission.leave(10);
    await third;
    expect(order).toEqual(["third true"]);
    admission.leave(20);
    await fourth;
    expect(order).toEqual(["third true", "fourth true"]);
    // Each turn given back went to one waiting: still two worked, none waiting.
    expect(admission.inProgress).toBe(2);
    expect(admission.waiting).toBe(0);
    admission.leave(30);
    admission.leave(40);
    expect(admission.inProgress).toBe(0);
    expect(admission.enter(50)).toBe(true);
  });

  it("refuses one whose turn has not come within the longest wait, and the wait is over for it", async () => {
    const admission = new Admission({ maxConcurrent: 1, maxWaitMs: 500 });
    expect(admission.enter(0)).toBe(true);
    const waiting = admission.enter(0);
    vi.advanceTimersByTime(499);
    expect(admission.waiting).toBe(1);
    vi.advanceTimersByTime(1);
    expect(await waiting).toBe(false);
    expect(admission.waiting).toBe(0);
    // The turn given back later is free again, not handed to the one refused.
    admission.leave(600);
    expect(admission.inProgress).toBe(0);
    expect(admission.enter(600)).toBe(true);
  });

  it("refuses at once one whose turn would come too late by the rate requests finish at", async () => {
    const admission = new Admission({ maxConcurrent: 1, maxWaitMs: 450 });
    // One request finished every 100 ms for five seconds: ten a second.
    let now = 0;
    for (let i = 0; i < 50; i++) {
      expect(admission.enter(now)).toBe(true);
      now += 100;
      admission.leave(now);
    }
    expect(admission.enter(now)).toBe(true);
    // At ten a second, the fourth in line has its turn within 450 ms, a fifth would not: refused without waiting.
    const waiting = Array.from({ length: 4 }, () => admission.enter(now));
    expect(waiting.every((w) => w instanceof Promise)).toBe(true);
    expect(admission.enter(now)).toBe(false);
    expect(admission.waiting).toBe(4);
    for (let i = 0; i < 4; i++) admission.leave((now += 100));
    expect(await Promise.all(waiting)).toEqual([true, true, true, true]);
  });
});
