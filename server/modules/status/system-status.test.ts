import { describe, expect, it } from "vitest";
import { modelState, overallState, type ModelStatus, type Outcomes } from "./system-status.ts";

const outcomes = (succeeded: number, failed: number): Outcomes => ({
  finished: succeeded + failed,
  succeeded,
  failed,
  successRate: succeeded + failed > 0 ? succeeded / (succeeded + failed) : null,
  p50Seconds: null,
  p95Seconds: null,
});
const none = outcomes(0, 0);

describe("a model's state from its outcomes", () => {
  it("is operational when nothing ran, or nine in ten or more succeeded", () => {
    expect(modelState(none, none)).toBe("operational");
    expect(modelState(outcomes(9, 1), outcomes(90, 10))).toBe("operational");
    // One failure alone is not a trend
    expect(modelState(outcomes(0, 1), outcomes(0, 1))).toBe("operational");
  });

  it("is degraded when fewer than nine in ten succeeded in the last hour or the last day", () => {
    expect(modelState(outcomes(1, 1), outcomes(1, 1))).toBe("degraded");
    expect(modelState(outcomes(5, 0), outcomes(40, 10))).toBe("degraded");
    expect(modelState(none, outcomes(4, 1))).toBe("degraded");
    // Too few jobs in the day to judge by
    expect(modelState(none, outcomes(2, 2))).toBe("operational");
  });

  it("is down when the last hour had at least three finished jobs and none succeeded", () => {
    expect(modelState(outcomes(0, 3), outcomes(50, 3))).toBe("down");
    expect(modelState(outcomes(0, 2), outcomes(0, 2))).toBe("degraded");
    expect(modelState(outcomes(1, 5), outcomes(1, 5))).toBe("degraded");
  });
});

describe("the overall state", () => {
  const ok = [
    { id: "web", state: "operational" },
    { id: "database", state: "operational" },
    { id: "email", state: "not_configured" },
  ] as const;
  const model = (state: ModelStatus["state"]) => ({ state }) as ModelStatus;

  it("is operational when every part is, or is not used", () => {
    expect(overallState([...ok], [model("operational"), model("not_configured")])).toBe("operational");
  });

  it("is degraded by a part or a model in trouble, and down without the database", () => {
    expect(overallState([...ok, { id: "storage", state: "down" }], [])).toBe("degraded");
    expect(overallState([...ok], [model("down")])).toBe("degraded");
    expect(overallState([...ok], [model("degraded")])).toBe("degraded");
    expect(overallState([{ id: "database", state: "down" }], [model("operational")])).toBe("down");
  });
});
