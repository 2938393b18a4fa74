import { describe, expect, it } from "vitest";
import {
  answerSummary,
  branchOf,
  dateGroupOf,
  leafFrom,
  siblingsOf,
  turnsOf,
  type ChatMessageView,
} from "./chat-tree.ts";

let clock = 0;
const message = (id: string, parentId: string | null, role: "user" | "assistant", text: string, more = {}) =>
  ({
    id,
    parentId,
    role,
    parts: [{ type: "text", text }],
    status: "done",
    modelId: "prompt-helper",
    inputTokens: 10,
    outputTokens: 5,
    creditsHeld: 5,
    creditsCharged: role === "assistant" ? 1 : null,
    errorCode: null,
    createdAt: new Date(Date.UTC(2026, 10, 1, 0, 0, clock++)).toISOString(),
    ...more,
  }) as ChatMessageView;

// q1 → a1 (cut) → a1c (its continuation) → q2 → a2 ; a1' is another answer to q1; q2' an edit of q2.
const tree = [
  message("q1", null, "user", "first"),
  message("a1", "q1", "assistant", "Half of ", { status: "out_of_credits" }),
  message("a1c", "a1", "assistant", "an answer."),
  message("q2", "a1c", "user", "second"),
  message("a2", "q2", "assistant", "Two."),
  message("a1b", "q1", "assistant", "Another answer."),
  message("q2b", "a1c", "user", "second, edited"),
];

describe("the chat's message tree", () => {
  it("follows a branch from its leaf, with an answer and its continuation as one turn", () => {
    const branch = branchOf(tree, "a2");
    expect(branch.map((m) => m.id)).toEqual(["q1", "a1", "a1c", "q2", "a2"]);
    const turns = turnsOf(branch);
    expect(turns.map((t) => t.kind)).toEqual(["question", "answer", "question", "answer"]);
    const answer = turns[1]!;
    expect(answer.kind === "answer" && answerSummary(answer.messages)).toMatchObject({
      text: "Half of an answer.",
      credits: 2,
      status: "done",
    });
    expect(branchOf(tree, "missing")).toEqual([]);
  });

  it("finds a message's versions and the branch each one shows", () => {
    expect(siblingsOf(tree, tree[1]!).map((m) => m.id)).toEqual(["a1", "a1b"]);
    expect(siblingsOf(tree, tree[3]!).map((m) => m.id)).toEqual(["q2", "q2b"]);
    // A continuation is not a version of the question after it.
    expect(siblingsOf(tree, tree[2]!).map((m) => m.id)).toEqual(["a1c"]);
    expect(leafFrom(tree, "a1")).toBe("q2b");
    expect(leafFrom(tree, "a1b")).toBe("a1b");
  });

  it("groups conversations by calendar day in the reader's time zone", () => {
    const now = new Date("2026-11-25T10:00:00Z");
    expect(dateGroupOf(new Date("2026-11-25T00:30:00Z"), now, "UTC")).toBe("today");
    // Half past midnight in UTC is still the day before in New York.
    expect(dateGroupOf(new Date("2026-11-25T00:30:00Z"), now, "America/New_York")).toBe("yesterday");
    expect(dateGroupOf(new Date("2026-11-20T12:00:00Z"), now, "UTC")).toBe("week");
    expect(dateGroupOf(new Date("2026-11-01T12:00:00Z"), now, "UTC")).toBe("month");
    expect(dateGroupOf(new Date("2026-01-01T12:00:00Z"), now, "UTC")).toBe("older");
  });
});
