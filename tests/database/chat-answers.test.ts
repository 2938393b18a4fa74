import { ModelRegistry } from "#server/modules/catalog/model-registry.ts";
import { randomUUID } from "node:crypto";
import { and, eq } from "drizzle-orm";
import pino from "pino";
import { APICallError } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { rmSync } from "node:fs";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import {
  apiKey,
  asset,
  autoTopUp,
  chatConversation,
  chatMessage,
  creditEntry,
  creditHold,
} from "#server/db/schema/index.ts";
import { TOPUP_QUEUE } from "#server/modules/billing/auto-topup.ts";
import { parseEnv } from "#server/env.ts";
import { getBalance, grantCredits, holdCredits } from "#server/modules/credits/ledger.ts";
import { startAnswer, stopAnswer, sweepAnswers, type AnswerDeps } from "#server/modules/chat/answer.ts";
import { promptHelperAnswer } from "#server/providers/demo/chat-model.ts";
import { settleToolCall } from "#server/modules/chat/tools.ts";
import { createApiConversation, purgeApiConversations } from "#server/modules/chat/conversations.ts";
import { readAnswer } from "#server/modules/chat/read-answer.ts";
import { listEntries } from "#server/modules/credits/list-entries.ts";
import { chatCatalog, chatCost, MIN_OUTPUT_TOKENS } from "#config/chat-models.ts";
import { AppError } from "#server/errors.ts";
import { backends, insertUserWithCredits, migratedDatabase } from "#tests/support/backends.ts";
import { tempDir } from "#tests/support/server.ts";
import { createLocalStorage } from "#server/storage/local.ts";
import type { Storage } from "#server/storage/storage.ts";
import { saveInputImage } from "#server/modules/generation/save-input-image.ts";

const logger = pino({ level: "silent" });
const helper = chatCatalog.find((m) => m.id === "prompt-helper")!;
const codeOf = (error: unknown) => (error instanceof AppError ? error.code : String(error));

/** A model that writes `chunks` and then ends as `end` says: finished, or failed mid-stream. */
function scripted(chunks: string[], end: "finish" | "error" = "finish", usage = { input: 40, output: 12 }) {
  const parts: LanguageModelV4StreamPart[] = [
    { type: "stream-start", warnings: [] },
    { type: "text-start", id: "t" },
    ...chunks.map((delta) => ({ type: "text-delta" as const, id: "t", delta })),
    end === "finish"
      ? {
          type: "finish",
          finishReason: { unified: "stop", raw: "stop" },
          usage: {
            inputTokens: { total: usage.input, noCache: usage.input, cacheRead: 0, cacheWrite: 0 },
            outputTokens: { total: usage.output, text: usage.output, reasoning: 0 },
          },
        }
      : {
          type: "error",
          error: new APICallError({
            message: "upstream connection reset",
            url: "http://provider.invalid/v1/chat/completions",
            requestBodyValues: {},
            statusCode: 502,
            isRetryable: true,
          }),
        },
  ];
  return new MockLanguageModelV4({
    doStream: async () => ({
      stream: new ReadableStream({
        start(controller) {
          for (const part of parts) controller.enqueue(part);
          controller.close();
        },
      }),
    }),
  });
}

describe.each(backends)("chat answers on $name", (backend) => {
  const db = migratedDatabase(backend);
  const env = parseEnv({ OPENAI_API_KEY: "sk-test" });
  const deps = (languageModel?: AnswerDeps["languageModel"]): AnswerDeps => ({
    db: db(),
    env,
    logger,
    models: ModelRegistry.builtIn(env),
    languageModel,
  });

  const account = (credits: number) => insertUserWithCredits(db(), credits);
  async function question(userId: string, text: string, modelId = "prompt-helper") {
    const [conversation] = await db().insert(chatConversation).values({ userId, modelId }).returning();
    const [asked] = await db()
      .insert(chatMessage)
      .values({ conversationId: conversation!.id, role: "user", parts: [{ type: "text", text }], text })
      .returning();
    return { conversationId: conversation!.id, parentId: asked!.id };
  }
  const answerRow = async (id: string) => (await db().select().from(chatMessage).where(eq(chatMessage.id, id)))[0]!;
  const entriesOf = (holdId: string) => db().select().from(creditEntry).where(eq(creditEntry.holdId, holdId));

  it("streams the offline helper's answer in the asker's language and charges exactly what it used, once", async () => {
    const userId = await account(100);
    const q = await question(userId, "ein Leuchtturm im Sturm");
    const deltas: string[] = [];
    const started = await startAnswer(deps(), { userId, ...q, locale: "de", onDelta: (d) => deltas.push(d) });
    // While it streams, the credits are held and the answer is saved as streaming.
    expect((await answerRow(started.messageId)).status).toBe("streaming");
    expect((await getBalance({ db: db(), userId })).held).toBe(started.creditsHeld);
    const outcome = await started.done;

    expect(outcome.status).toBe("done");
    expect(outcome.text).toBe(promptHelperAnswer("ein Leuchtturm im Sturm", "de"));
    expect(outcome.text).toContain("ein Leuchtturm im Sturm");
    expect(deltas.length).toBeGreaterThan(5);
    expect(deltas.join("")).toBe(outcome.text);
    expect(outcome.creditsCharged).toBe(chatCost(helper.price, outcome.inputTokens, outcome.outputTokens));
    expect(outcome.creditsCharged).toBeGreaterThan(0);
    expect(outcome.creditsCharged).toBeLessThanOrEqual(started.creditsHeld);

    const saved = await answerRow(started.messageId);
    expect(saved).toMatchObject({ status: "done", text: outcome.text, creditsCharged: outcome.creditsCharged });
    expect(await getBalance({ db: db(), userId })).toEqual({
      balance: 100 - outcome.creditsCharged,
      held: 0,
      available: 100 - outcome.creditsCharged,
    });
    expect((await entriesOf(saved.holdId!)).map((e) => [e.kind, e.amount])).toEqual([
      ["hold", 0],
      ["capture", -outcome.creditsCharged],
    ]);
    const [conversation] = await db().select().from(chatConversation).where(eq(chatConversation.id, q.conversationId));
    expect(conversation!.leafId).toBe(started.messageId);
  });

  it("never answers a question without the image it shows: refused before holding anything when it cannot be read", async () => {
    const filesDir = tempDir("atelier-chat-files-");
    try {
      const storage = createLocalStorage(filesDir);
      const userId = await account(100);
      const png = await sharp({ create: { width: 32, height: 32, channels: 3, background: "#a33" } })
        .png()
        .toBuffer();
      const saved = await saveInputImage({ db: db(), storage, userId, bytes: new Uint8Array(png) });
      const [image] = await db().select().from(asset).where(eq(asset.id, saved.id));
      const [conversation] = await db().insert(chatConversation).values({ userId, modelId: "gpt-4o-mini" }).returning();
      const [asked] = await db()
        .insert(chatMessage)
        .values({
          conversationId: conversation!.id,
          role: "user",
          parts: [
            { type: "text", text: "what is in it?" },
            { type: "file", assetId: saved.id },
          ],
          text: "what is in it?",
        })
        .returning();
      const q = { conversationId: conversation!.id, parentId: asked!.id };
      const model = scripted(["A red square."]);
      const withStorage = (s: Storage): AnswerDeps => ({
        ...deps(async () => model),
        studio: { storage: s, logger, models: ModelRegistry.builtIn(env) } as unknown as AnswerDeps["studio"],
      });
      const answers = () => db().select().from(chatMessage).where(eq(chatMessage.parentId, asked!.id));

      // As on a process whose storage is not the one the image was uploaded to.
      const bytes = await storage.get(image!.storageKey).then((f) => new Response(f!.body).arrayBuffer());
      await storage.delete(image!.storageKey);
      await expect(startAnswer(withStorage(storage), { userId, ...q, locale: "en" }).catch(codeOf)).resolves.toBe(
        "chat_attachments_invalid",
      );
      // A storage that fails to answer: unavailable for now.
      const failing = { ...storage, get: () => Promise.reject(new Error("503 Service Unavailable")) };
      await expect(startAnswer(withStorage(failing), { userId, ...q, locale: "en" }).catch(codeOf)).resolves.toBe(
        "service_unavailable",
      );
      expect(model.doStreamCalls).toHaveLength(0);
      expect(await answers()).toEqual([]);
      expect(await getBalance({ db: db(), userId })).toEqual({ balance: 100, held: 0, available: 100 });

      // Once the image is back, the model reads it with the question.
      await storage.put(image!.storageKey, new Uint8Array(bytes), image!.mimeType);
      const started = await startAnswer(withStorage(storage), { userId, ...q, locale: "en" });
      expect((await started.done).status).toBe("done");
      const prompt = model.doStreamCalls[0]!.prompt.at(-1)!;
      expect(prompt.role).toBe("user");
      expect((prompt.content as { type: string }[]).map((p) => p.type)).toEqual(["text", "file"]);
    } finally {
      rmSync(filesDir, { recursive: true, force: true });
    }
  });

  it("queues the account's automatic top-up as soon as an answer's hold takes it below its threshold", async () => {
    const userId = await account(100);
    await db().insert(autoTopUp).values({
      userId,
      enabled: true,
      threshold: 100,
      packId: "starter",
      monthlyMax: 3,
      paymentMethodId: "pm_test_1",
    });
    const sent: { queue: string; data: unknown }[] = [];
    const boss = { send: async (queue: string, data: unknown) => void sent.push({ queue, data }) };
    const studio = { boss, logger, models: ModelRegistry.builtIn(env) } as unknown as AnswerDeps["studio"];
    const q = await question(userId, "a harbour at dawn");
    const started = await startAnswer({ ...deps(), studio }, { userId, ...q, locale: "en", tools: false });
    expect(sent).toEqual([{ queue: TOPUP_QUEUE, data: { userId } }]);
    await started.done;
  });

  it("writes only what the balance pays for, then ends the answer as out of credits", async () => {
    // GPT-4.1 may write 8,192 tokens, which would cost 20 credits; five pay for about 2,000 of them.
    const model = chatCatalog.find((m) => m.id === "gpt-4.1")!;
    const userId = await account(5);
    const q = await question(userId, "Write me a long story about a lighthouse keeper", "gpt-4.1");
    let limit: number | undefined;
    const started = await startAnswer(
      deps(async () => {
        const mock = scripted([]);
        // A model that writes until its output limit, as a provider does.
        return new MockLanguageModelV4({
          doStream: async (options) => {
            limit = options.maxOutputTokens;
            const words = Array.from({ length: 10 }, (_, i) => `word${i} `);
            return {
              stream: new ReadableStream({
                start(controller) {
                  controller.enqueue({ type: "stream-start", warnings: [] });
                  controller.enqueue({ type: "text-start", id: "t" });
                  for (const delta of words) controller.enqueue({ type: "text-delta", id: "t", delta });
                  controller.enqueue({ type: "text-end", id: "t" });
                  controller.enqueue({
                    type: "finish",
                    finishReason: { unified: "length", raw: "length" },
                    usage: {
                      inputTokens: { total: 20, noCache: 20, cacheRead: 0, cacheWrite: 0 },
                      outputTokens: { total: limit, text: limit, reasoning: 0 },
                    },
                  });
                  controller.close();
                },
              }),
            };
          },
          doGenerate: mock.doGenerate,
        });
      }),
      { userId, ...q, locale: "en" },
    );
    expect(started.creditsHeld).toBe(5);
    const outcome = await started.done;
    expect(limit).toBeLessThan(model.maxOutputTokens);
    expect(chatCost(model.price, 20, limit!)).toBeLessThanOrEqual(5);
    expect(outcome.status).toBe("out_of_credits");
    expect(outcome.creditsCharged).toBe(chatCost(model.price, 20, limit!));
    expect(await getBalance({ db: db(), userId })).toMatchObject({ balance: 5 - outcome.creditsCharged, held: 0 });
  });

  it("refuses to start without credits for the shortest answer, holding nothing and saving no answer", async () => {
    const userId = await account(0);
    const q = await question(userId, "a quiet harbour");
    await expect(startAnswer(deps(), { userId, ...q, locale: "en" })).rejects.toSatisfy(
      (error) => codeOf(error) === "insufficient_credits",
    );
    expect(await db().select().from(chatMessage).where(eq(chatMessage.parentId, q.parentId))).toEqual([]);
    expect(await db().select().from(creditHold).where(eq(creditHold.userId, userId))).toEqual([]);
    expect(MIN_OUTPUT_TOKENS).toBeGreaterThan(0);
  });

  it("keeps and charges what was written when its author stops it", async () => {
    const userId = await account(100);
    const q = await question(userId, "a lighthouse at dawn");
    let stopped = false;
    let started!: Awaited<ReturnType<typeof startAnswer>>;
    const first = new Promise<unknown>((resolve) => {
      void startAnswer(deps(), {
        userId,
        ...q,
        locale: "en",
        onDelta: () => {
          if (!stopped && started) {
            stopped = true;
            // Only its author can stop it.
            const stops = [
              stopAnswer({ db: db(), userId: "someone-else", messageId: started.messageId }),
              stopAnswer({ db: db(), userId, messageId: started.messageId }),
            ];
            resolve(Promise.all(stops).then((answers) => expect(answers).toEqual([false, true])));
          }
        },
      }).then((s) => (started = s));
    });
    await first;
    const outcome = await started.done;
    expect(outcome.status).toBe("stopped");
    expect(outcome.text.length).toBeGreaterThan(0);
    expect(outcome.text.length).toBeLessThan(promptHelperAnswer("a lighthouse at dawn", "en").length);
    expect(outcome.creditsCharged).toBe(
      Math.min(started.creditsHeld, chatCost(helper.price, outcome.inputTokens, outcome.outputTokens)),
    );
    expect((await getBalance({ db: db(), userId })).balance).toBe(100 - outcome.creditsCharged);
  });

  it("stops an answer written by another process when that process next saves it", async () => {
    const userId = await account(100);
    const q = await question(userId, "a lighthouse at dawn in the rain");
    const started = await startAnswer(deps(), { userId, ...q, locale: "en" });
    // What the stop endpoint of another server does: the request is saved for the process writing the answer.
    await db().update(chatMessage).set({ stopRequestedAt: new Date() }).where(eq(chatMessage.id, started.messageId));
    const outcome = await started.done;
    expect(outcome.status).toBe("stopped");
    expect(outcome.text.length).toBeLessThan(promptHelperAnswer("a lighthouse at dawn in the rain", "en").length);
    expect(await getBalance({ db: db(), userId })).toMatchObject({ balance: 100 - outcome.creditsCharged, held: 0 });
  });

  it("saves a stop request for an answer this process is not writing, for its author only", async () => {
    const userId = await account(10);
    const q = await question(userId, "a lighthouse", "gpt-4o-mini");
    const [elsewhere] = await db()
      .insert(chatMessage)
      .values({
        conversationId: q.conversationId,
        parentId: q.parentId,
        role: "assistant",
        parts: [],
        status: "streaming",
      })
      .returning();
    expect(await stopAnswer({ db: db(), userId: "someone-else", messageId: elsewhere!.id })).toBe(false);
    expect((await answerRow(elsewhere!.id)).stopRequestedAt).toBeNull();
    expect(await stopAnswer({ db: db(), userId, messageId: elsewhere!.id })).toBe(true);
    expect((await answerRow(elsewhere!.id)).stopRequestedAt).toBeInstanceOf(Date);
    await db().update(chatMessage).set({ status: "stopped" }).where(eq(chatMessage.id, elsewhere!.id));
    expect(await stopAnswer({ db: db(), userId, messageId: elsewhere!.id })).toBe(false);
  });

  it("continues an answer that ran out of credits from where it stopped, once credits are back", async () => {
    const idea =
      "a quiet harbour town at night, fishing boats rocking by the pier, lanterns reflected on the wet cobblestones, " +
      "an old lighthouse sweeping its beam over low clouds, a cat asleep on a coil of rope, a bakery opening early " +
      "with warm light in its windows, gulls circling above the masts and a thin fog rolling in from the open sea";
    const whole = promptHelperAnswer(idea, "fr");
    // Enough for the input and a few dozen output tokens of the helper (1,000 and 4,000 credits per million).
    const userId = await account(1);
    const q = await question(userId, idea);
    const first = await startAnswer(deps(), { userId, ...q, locale: "fr" });
    const cut = await first.done;
    expect(cut.status).toBe("out_of_credits");
    expect(whole.startsWith(cut.text)).toBe(true);
    await expect(
      startAnswer(deps(), { userId, conversationId: q.conversationId, parentId: q.parentId, locale: "fr" }),
    ).rejects.toSatisfy((e) => codeOf(e) === "insufficient_credits");

    await grantCredits({ db: db(), userId, amount: 100, kind: "admin_adjustment", idempotencyKey: randomUUID() });
    const rest = await startAnswer(deps(), {
      userId,
      conversationId: q.conversationId,
      parentId: first.messageId,
      locale: "fr",
    });
    const continued = await rest.done;
    expect(continued.status).toBe("done");
    expect(cut.text + continued.text).toBe(whole);
    const row = await answerRow(rest.messageId);
    expect(row.parentId).toBe(first.messageId);
    const [conversation] = await db().select().from(chatConversation).where(eq(chatConversation.id, q.conversationId));
    expect(conversation!.leafId).toBe(rest.messageId);
    // Only an answer that was cut is continued.
    await expect(
      startAnswer(deps(), { userId, conversationId: q.conversationId, parentId: rest.messageId, locale: "fr" }),
    ).rejects.toSatisfy((e) => codeOf(e) === "conflict");
  });

  it("charges nothing for an answer the provider breaks off, and keeps what it had written", async () => {
    const userId = await account(100);
    const q = await question(userId, "Explain golden hour", "gpt-4o-mini");
    const started = await startAnswer(
      deps(async () => scripted(["Golden hour is ", "the first hour "], "error")),
      {
        userId,
        ...q,
        locale: "en",
      },
    );
    const outcome = await started.done;
    expect(outcome).toMatchObject({ status: "failed", creditsCharged: 0, errorCode: expect.any(String) });
    expect(outcome.text).toBe("Golden hour is the first hour ");
    expect(await getBalance({ db: db(), userId })).toEqual({ balance: 100, held: 0, available: 100 });
    const saved = await answerRow(started.messageId);
    expect((await entriesOf(saved.holdId!)).map((e) => e.kind)).toEqual(["hold", "release"]);
  });

  it("fails over to the model's next provider when the first fails before writing, and charges the one that answered", async () => {
    // A model bound to two providers (as one reached directly and through a gateway would be).
    const twice = {
      ...chatCatalog.find((m) => m.id === "gpt-4o-mini")!,
      id: "test-two-providers",
      bindings: [
        { provider: "openai" as const, model: "first" },
        { provider: "openai" as const, model: "second" },
      ],
    };
    chatCatalog.push(twice);
    try {
      const userId = await account(100);
      const q = await question(userId, "Hello", twice.id);
      const tried: string[] = [];
      const started = await startAnswer(
        deps(async (binding) => {
          tried.push(binding.model);
          return binding.model === "first" ? scripted([], "error") : scripted(["Hello ", "there."]);
        }),
        { userId, ...q, locale: "en" },
      );
      const outcome = await started.done;
      expect(tried).toEqual(["first", "second"]);
      expect(outcome).toMatchObject({ status: "done", text: "Hello there.", inputTokens: 40, outputTokens: 12 });
      expect(await getBalance({ db: db(), userId })).toMatchObject({ balance: 100 - outcome.creditsCharged, held: 0 });
    } finally {
      chatCatalog.splice(chatCatalog.indexOf(twice), 1);
    }
  });

  it("refuses to confirm a tool call that never ran (the model's input was refused), with no error", async () => {
    const userId = await account(100);
    const q = await question(userId, "Draw a cat", "gpt-4o-mini");
    const [answer] = await db()
      .insert(chatMessage)
      .values({
        conversationId: q.conversationId,
        parentId: q.parentId,
        role: "assistant",
        status: "done",
        parts: [
          { type: "tool-generate_image", toolCallId: "call-1", state: "output-error", errorText: "error.unknown" },
        ],
      })
      .returning();
    const studio = { db: db(), env } as unknown as Parameters<typeof settleToolCall>[0];
    await expect(
      settleToolCall(studio, { userId, messageId: answer!.id, toolCallId: "call-1", confirm: true, locale: "en" }),
    ).rejects.toSatisfy((e) => codeOf(e) === "conflict");
    // Someone else's answer does not exist for them.
    const other = await account(0);
    await expect(
      settleToolCall(studio, {
        userId: other,
        messageId: answer!.id,
        toolCallId: "call-1",
        confirm: true,
        locale: "en",
      }),
    ).rejects.toSatisfy((e) => codeOf(e) === "not_found");
  });

  it("charges a hosted model's own count of tokens, at its price", async () => {
    const userId = await account(100);
    const q = await question(userId, "Hello", "gpt-4o-mini");
    const model = chatCatalog.find((m) => m.id === "gpt-4o-mini")!;
    const started = await startAnswer(
      deps(async () => scripted(["Hi! ", "How can I help?"], "finish", { input: 30_000, output: 2_000 })),
      { userId, ...q, locale: "en" },
    );
    const outcome = await started.done;
    expect(outcome).toMatchObject({ status: "done", inputTokens: 30_000, outputTokens: 2_000 });
    // 30,000 × 50 + 2,000 × 200 millionths = 1.9 credits, rounded up; never more than was held.
    expect(outcome.creditsCharged).toBe(Math.min(started.creditsHeld, chatCost(model.price, 30_000, 2_000)));
  });

  it("starts exactly as many answers as the balance covers when they all ask at once", async () => {
    const userId = await account(3);
    const questions = await Promise.all(
      Array.from({ length: 8 }, () => question(userId, "a red kite over hills", "gpt-4o-mini")),
    );
    const model = async () => scripted(["Sure."], "finish", { input: 10, output: 2 });
    // gpt-4o-mini holds one credit for a short question (its whole output at its price rounds up to 1).
    const results = await Promise.allSettled(
      questions.map((q) => startAnswer(deps(model), { userId, ...q, locale: "en" })),
    );
    const started = results.filter((r) => r.status === "fulfilled");
    const refused = results.filter((r) => r.status === "rejected");
    expect(started.length).toBe(3);
    expect(refused.every((r) => codeOf((r as PromiseRejectedResult).reason) === "insufficient_credits")).toBe(true);
    await Promise.all(
      started.map((r) => (r as PromiseFulfilledResult<Awaited<ReturnType<typeof startAnswer>>>).value.done),
    );
    const balance = await getBalance({ db: db(), userId });
    expect(balance.held).toBe(0);
    expect(balance.balance).toBeGreaterThanOrEqual(0);
    const answers = await db()
      .select()
      .from(chatMessage)
      .where(and(eq(chatMessage.role, "assistant"), eq(chatMessage.modelId, "gpt-4o-mini")));
    const charged = answers
      .filter((a) => questions.some((q) => q.parentId === a.parentId))
      .reduce((sum, a) => sum + (a.creditsCharged ?? 0), 0);
    expect(balance.balance).toBe(3 - charged);
  });

  it("forgets the API's conversations untouched for 30 days, but not the page's, a recent one or one still answering", async () => {
    const userId = await account(0);
    const old = new Date(Date.now() - 31 * 24 * 60 * 60 * 1000);
    const make = async (source: "web" | "api", updatedAt: Date, streaming = false) => {
      const [conversation] = await db()
        .insert(chatConversation)
        .values({ userId, modelId: "prompt-helper", source, updatedAt })
        .returning();
      await db()
        .insert(chatMessage)
        .values({
          conversationId: conversation!.id,
          role: streaming ? "assistant" : "user",
          parts: [{ type: "text", text: "hi" }],
          text: "hi",
          ...(streaming ? { status: "streaming" as const } : {}),
        });
      return conversation!.id;
    };
    const forgotten = await make("api", old);
    const kept = [await make("api", new Date()), await make("web", old), await make("api", old, true)];
    expect(await purgeApiConversations({ db: db() })).toBe(1);
    const left = (await db().select({ id: chatConversation.id }).from(chatConversation)).map((r) => r.id);
    expect(left).not.toContain(forgotten);
    expect(left).toEqual(expect.arrayContaining(kept));
    expect(await db().select().from(chatMessage).where(eq(chatMessage.conversationId, forgotten))).toEqual([]);
  });

  it("ends an answer whose process died while writing it, and releases its credits", async () => {
    const userId = await account(50);
    const q = await question(userId, "a lighthouse", "gpt-4o-mini");
    const { holdId } = await holdCredits({ db: db(), userId, amount: 5, idempotencyKey: randomUUID() });
    const [orphan] = await db()
      .insert(chatMessage)
      .values({
        conversationId: q.conversationId,
        parentId: q.parentId,
        role: "assistant",
        parts: [{ type: "text", text: "Half an ans" }],
        text: "Half an ans",
        status: "streaming",
        creditsHeld: 5,
        holdId,
        updatedAt: new Date(Date.now() - 10 * 60_000),
      })
      .returning();
    expect(await getBalance({ db: db(), userId })).toMatchObject({ held: 5 });
    expect(await sweepAnswers({ db: db() })).toEqual({ ended: 1 });
    expect(await answerRow(orphan!.id)).toMatchObject({
      status: "failed",
      errorCode: "interrupted",
      creditsCharged: 0,
    });
    expect(await getBalance({ db: db(), userId })).toEqual({ balance: 50, held: 0, available: 50 });
    // Once.
    expect(await sweepAnswers({ db: db() })).toEqual({ ended: 0 });
  });
  it("names an answer's movements in the credit history: its conversation, or the API key that asked", async () => {
    const userId = await account(50);
    const q = await question(userId, "a lighthouse in the rain");
    const page = await startAnswer(deps(), { userId, ...q, locale: "en" });
    expect((await page.done).status).toBe("done");
    const [key] = await db()
      .insert(apiKey)
      .values({ userId, name: "Build server", prefix: "atl_test", keyHash: randomUUID() })
      .returning({ id: apiKey.id });
    const asked = await createApiConversation({
      db: db(),
      userId,
      modelId: "prompt-helper",
      systemPrompt: null,
      turns: [{ role: "user", text: "a harbour", parts: [{ type: "text", text: "a harbour" }] }],
      apiKeyId: key!.id,
    });
    const api = await startAnswer(deps(), { userId, ...asked, locale: "en", tools: false });
    expect((await api.done).status).toBe("done");

    const history = async () => (await listEntries({ db: db(), userId, page: 1, pageSize: 20 })).rows;
    const about = (rows: Awaited<ReturnType<typeof history>>, messageId: string) =>
      rows.filter((r) => r.reference?.type === "chat" && r.reference.id === messageId).map((r) => r.kind);
    const rows = await history();
    // Held, then charged: each movement names the answer it paid for.
    expect(about(rows, page.messageId)).toEqual(["capture", "hold"]);
    expect(about(rows, api.messageId)).toEqual(["capture", "hold"]);
    const onPage = rows.find((r) => r.reference?.id === page.messageId)!.reference;
    expect(onPage).toMatchObject({ conversationId: q.conversationId, label: "a lighthouse in the rain" });
    expect(onPage!.api).toBeUndefined();
    const throughApi = rows.find((r) => r.reference?.id === api.messageId)!.reference;
    expect(throughApi).toMatchObject({ api: { keyName: "Build server" } });
    expect(throughApi!.conversationId).toBeUndefined();

    // The key deleted: the movement still says it came through the API.
    await db().delete(apiKey).where(eq(apiKey.id, key!.id));
    expect((await history()).find((r) => r.reference?.id === api.messageId)!.reference).toMatchObject({
      api: { keyName: null },
    });
    // Someone else's answer is not read back.
    const other = await account(5);
    expect(await readAnswer({ db: db(), userId: other, messageId: api.messageId })).toBeNull();
    expect(await readAnswer({ db: db(), userId, messageId: api.messageId })).toMatchObject({
      status: "done",
      text: promptHelperAnswer("a harbour", "en"),
    });
  });
});
