/** A message of a conversation's tree as the page has it (see getConversation). */
export interface ChatMessageView {
  id: string;
  parentId: string | null;
  role: "user" | "assistant";
  parts: { type: string; text?: unknown }[];
  status: "streaming" | "done" | "stopped" | "failed" | "out_of_credits";
  modelId: string | null;
  inputTokens: number | null;
  outputTokens: number | null;
  creditsHeld: number | null;
  creditsCharged: number | null;
  errorCode: string | null;
  createdAt: string | Date;
}

/** The text of a message's parts. */
export const textOf = (m: Pick<ChatMessageView, "parts">) =>
  m.parts.map((p) => (p.type === "text" && typeof p.text === "string" ? p.text : "")).join("");

/** The messages from the first to `leafId`, following each message's parent (empty for an unknown leaf). */
export function branchOf(messages: ChatMessageView[], leafId: string | null): ChatMessageView[] {
  const byId = new Map(messages.map((m) => [m.id, m]));
  const branch: ChatMessageView[] = [];
  for (let m = leafId ? byId.get(leafId) : undefined; m; m = m.parentId ? byId.get(m.parentId) : undefined)
    branch.unshift(m);
  return branch;
}

/**
 * The message's siblings of its own role, in the order they were written, itself among them: the other answers
 * to its question (regenerated), or the other versions of a question (edited).
 */
export function siblingsOf(messages: ChatMessageView[], message: ChatMessageView): ChatMessageView[] {
  return messages.filter((m) => m.parentId === message.parentId && m.role === message.role);
}

/** The end of the branch that goes down from `id` through the latest child at each step: what a sibling shows. */
export function leafFrom(messages: ChatMessageView[], id: string): string {
  let leaf = id;
  for (;;) {
    const children = messages.filter((m) => m.parentId === leaf);
    if (children.length === 0) return leaf;
    leaf = children.at(-1)!.id;
  }
}

/**
 * A branch as the page shows it: a question, or an answer with its continuations (an answer that was cut and then
 * continued is one answer, its parts written one after the other).
 */
export type Turn =
  | { kind: "question"; message: ChatMessageView }
  | { kind: "answer"; head: ChatMessageView; messages: ChatMessageView[] };

export function turnsOf(branch: ChatMessageView[]): Turn[] {
  const turns: Turn[] = [];
  for (const m of branch) {
    const last = turns.at(-1);
    if (m.role === "user") turns.push({ kind: "question", message: m });
    else if (last?.kind === "answer") last.messages.push(m);
    else turns.push({ kind: "answer", head: m, messages: [m] });
  }
  return turns;
}

/** What an answer (with its continuations) says, what it cost, and how its last part ended. */
export function answerSummary(messages: ChatMessageView[]) {
  const last = messages.at(-1)!;
  return {
    text: messages.map(textOf).join(""),
    credits: messages.reduce((sum, m) => sum + (m.creditsCharged ?? 0), 0),
    outputTokens: messages.reduce((sum, m) => sum + (m.outputTokens ?? 0), 0),
    status: last.status,
    errorCode: last.errorCode,
    last,
  };
}

export type DateGroup = "today" | "yesterday" | "week" | "month" | "older";

/**
 * Where a conversation goes in the list by when it last changed: today, yesterday, the 7 and 30 days before, or
 * earlier, counted in calendar days of `timeZone` (UTC in the server's HTML, the reader's own once the page runs).
 */
export function dateGroupOf(updatedAt: Date, now: Date, timeZone?: string): DateGroup {
  const day = (d: Date) => {
    const parts = new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" })
      .format(d)
      .split("-")
      .map(Number);
    return Date.UTC(parts[0]!, parts[1]! - 1, parts[2]!) / 86_400_000;
  };
  const days = day(now) - day(updatedAt);
  if (days <= 0) return "today";
  if (days === 1) return "yesterday";
  if (days < 7) return "week";
  if (days < 30) return "month";
  return "older";
}
