// The chat's engine on PGlite and (when a PostgreSQL server can be had) on PostgreSQL:
// - time to first token through Atelier (the answer's use case: the conversation and its branch read, the balance,
//   the hold and the answer saved in one transaction, the AI SDK's OpenAI-compatible provider) against a local
//   OpenAI-compatible server over HTTP, beside the time to the first token of the same server asked directly;
// - 200 answers asked at once from one account whose balance covers N of them: exactly N start, the others are
//   refused, the balance never goes below zero and the ledger adds up to what the answers were charged.
// Prints one JSON object on stdout; `bench/run.mjs` runs it and puts it in the report.
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { TextDecoderStream } from "node:stream/web";
import { eq, sql } from "drizzle-orm";
import pino from "pino";
import { onBothDatabases } from "./postgres.mjs";
import { throughVite } from "./through-vite.mjs";
import { startFakeOpenAIChat } from "../tests/fakes/openai-chat.ts";
import { chatConversation, chatMessage, creditEntry, user } from "../server/db/schema/index.ts";
import { getBalance, grantCredits } from "../server/modules/credits/ledger.ts";
import { parseEnv } from "../server/env.ts";
import { chatHold, estimateInput } from "../config/chat-models.ts";

// The answer's module reads the translations through Vite's `import.meta.glob`: it is loaded through Vite.
const vite = await throughVite();
const { startAnswer } = await vite.load("/server/modules/chat/answer.ts");
const { ModelRegistry } = await vite.load("/server/modules/catalog/model-registry.ts");

const ROUNDS = 30;
const CONCURRENT = 200;
const COVERED = 37;
const logger = pino({ level: "silent" });

const percentile = (sorted, p) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] : null;
const round = (n, d = 2) => (n === null ? null : Math.round(n * 10 ** d) / 10 ** d);
const summary = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    p50: round(percentile(sorted, 0.5)),
    p90: round(percentile(sorted, 0.9)),
    max: round(sorted.at(-1) ?? null),
  };
};

const fake = await startFakeOpenAIChat();
fake.chunkDelayMs = 0;
const env = parseEnv({
  OPENAI_COMPATIBLE_BASE_URL: fake.apiUrl,
  OPENAI_COMPATIBLE_API_KEY: "bench",
  OPENAI_COMPATIBLE_CHAT_MODELS: "bench-model",
  DEMO_MODELS: "false",
});
const models = ModelRegistry.builtIn(env);
const model = models.findChat("compat-bench-model");

/** Time to the first token of the fake asked directly, as a client of the provider sees it. */
async function direct() {
  const t0 = performance.now();
  const res = await fetch(`${fake.apiUrl}/chat/completions`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: "Bearer bench" },
    body: JSON.stringify({
      model: "bench-model",
      stream: true,
      messages: [{ role: "user", content: "a lighthouse" }],
    }),
  });
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    seen += value;
    // The first chunk with text (the first one only says who speaks).
    if (/"content":"[^"]/.test(seen)) break;
  }
  const ms = performance.now() - t0;
  await reader.cancel();
  return ms;
}

async function account(db, credits) {
  const id = randomUUID();
  await db.insert(user).values({ id, name: "Bench", email: `${id}@bench.invalid`, emailVerified: true });
  if (credits > 0)
    await grantCredits({ db, userId: id, amount: credits, kind: "admin_adjustment", idempotencyKey: randomUUID() });
  return id;
}

async function question(db, userId, text) {
  const [conversation] = await db.insert(chatConversation).values({ userId, modelId: model.id }).returning();
  const [asked] = await db
    .insert(chatMessage)
    .values({ conversationId: conversation.id, role: "user", parts: [{ type: "text", text }], text })
    .returning();
  return { conversationId: conversation.id, parentId: asked.id };
}

async function measure(handle) {
  const db = handle.db;
  const deps = { db, env, logger, models };
  // Time to first token, through Atelier and directly, alternately.
  const userId = await account(db, 1_000_000);
  const through = [];
  const own = [];
  for (let i = 0; i < ROUNDS + 3; i++) {
    const asked = await question(db, userId, "a lighthouse");
    const t0 = performance.now();
    let first = null;
    const started = await startAnswer(deps, {
      userId,
      ...asked,
      locale: "en",
      onDelta: () => {
        first ??= performance.now() - t0;
      },
    });
    await started.done;
    const mine = await direct();
    // The first rounds warm both up.
    if (i >= 3) {
      through.push(first);
      own.push(mine);
    }
  }

  // 200 at once against a balance that covers COVERED of them.
  const input = estimateInput(undefined, ["a windmill"]);
  const hold = chatHold(model, input, Number.MAX_SAFE_INTEGER).credits;
  const poor = await account(db, hold * COVERED);
  const asked = await Promise.all(Array.from({ length: CONCURRENT }, () => question(db, poor, "a windmill")));
  const results = await Promise.allSettled(asked.map((a) => startAnswer(deps, { userId: poor, ...a, locale: "en" })));
  const started = results.filter((r) => r.status === "fulfilled").map((r) => r.value);
  const refused = results.filter((r) => r.status === "rejected");
  const outcomes = await Promise.all(started.map((s) => s.done));
  const charged = outcomes.reduce((sum, o) => sum + o.creditsCharged, 0);
  const balance = await getBalance({ db, userId: poor });
  const [ledger] = await db
    .select({ total: sql`coalesce(sum(${creditEntry.amount}), 0)`.mapWith(Number) })
    .from(creditEntry)
    .where(eq(creditEntry.userId, poor));
  return {
    timeToFirstTokenMs: {
      throughAtelier: summary(through),
      provider: summary(own),
      addedP50: round(summary(through).p50 - summary(own).p50),
    },
    concurrent: {
      asked: CONCURRENT,
      covered: COVERED,
      started: started.length,
      refused: refused.length,
      refusedAllInsufficient: refused.every((r) => r.reason?.code === "insufficient_credits"),
      charged,
      balance: balance.balance,
      held: balance.held,
      ledgerSum: ledger.total,
      ledgerAddsUp: ledger.total === hold * COVERED - charged && balance.balance === ledger.total,
      exact: started.length === COVERED && balance.balance >= 0 && balance.held === 0,
    },
  };
}

const report = { rounds: ROUNDS, pglite: null, postgres: null };
try {
  Object.assign(report, await onBothDatabases(measure, { poolMax: 20, logger, prefix: "atelier-bench-chat-" }));
} finally {
  await fake.close();
  await vite.close();
}
process.stdout.write(`${JSON.stringify(report)}\n`);
process.exit(0);
