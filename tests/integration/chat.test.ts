import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, startServer, TEST_DATABASE_URL, type TestServer } from "#tests/support/server.ts";
import { createTestDatabase } from "#tests/support/postgres.ts";
import { signedIn, uploadImage } from "#tests/support/session.ts";
import { text } from "#tests/support/locales.ts";
import { promptHelperAnswer } from "#server/providers/demo/chat-model.ts";
import { outcomeOf, readStream, textOf } from "#tests/support/chat-stream.ts";

const backend = TEST_DATABASE_URL ? "PostgreSQL" : "PGlite";

describe(`the chat over HTTP on ${backend}`, () => {
  let server: TestServer;
  let origin: string;
  let cookie: string;
  let other: string;
  let db: Awaited<ReturnType<typeof createTestDatabase>> | undefined;

  beforeAll(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    db = TEST_DATABASE_URL ? await createTestDatabase() : undefined;
    server = await startServer({
      PORT: String(port),
      SITE_URL: origin,
      // The offline image (1 credit) starts at once; the offline video (5 credits) waits for a confirmation.
      CHAT_CONFIRM_ABOVE_CREDITS: "3",
      ...(db ? { DATABASE_URL: db.url } : {}),
    });
    [cookie, other] = await Promise.all([
      signedIn(server, origin, "talker@example.com"),
      signedIn(server, origin, "someone@example.com"),
    ]);
  });
  afterAll(async () => {
    await server?.close();
    await db?.drop();
  });

  const call = (method: string, path: string, body?: unknown, as = cookie, headers: Record<string, string> = {}) =>
    fetch(`${server.url}${path}`, {
      method,
      headers: {
        Cookie: as,
        Origin: origin,
        "Sec-Fetch-Site": "same-origin",
        ...(body !== undefined ? { "Content-Type": "application/json" } : {}),
        ...headers,
      },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
  const balance = async () =>
    ((await (await call("GET", "/api/me")).json()) as { credits: { balance: number; held: number } }).credits;
  const conversation = async () => {
    const res = await call("POST", "/api/chat/conversations", { model: "prompt-helper" });
    expect(res.status).toBe(201);
    return ((await res.json()) as { conversation: { id: string } }).conversation.id;
  };
  const ask = (id: string, question: string, locale = "en") =>
    call("POST", `/api/chat/conversations/${id}/messages`, { text: question }, cookie, { "X-Locale": locale });

  it("offers the offline helper, streams its answer in the asker's language and charges it once", async () => {
    const models = (await (await call("GET", "/api/chat/models")).json()) as { models: { id: string }[] };
    expect(models.models.map((m) => m.id)).toContain("prompt-helper");
    const before = await balance();
    const id = await conversation();
    const res = await ask(id, "un phare dans la tempête", "fr");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const chunks = await readStream(res);
    const start = chunks[0]!;
    expect(start.type).toBe("start");
    expect(start.messageMetadata).toMatchObject({ creditsHeld: expect.any(Number) });
    expect(chunks.filter((c) => c.type === "text-delta").length).toBeGreaterThan(5);
    expect(textOf(chunks)).toBe(promptHelperAnswer("un phare dans la tempête", "fr"));
    const outcome = outcomeOf(chunks)!;
    expect(outcome).toMatchObject({ status: "done", messageId: start.messageId });
    const charged = outcome.creditsCharged as number;
    expect(charged).toBeGreaterThan(0);
    expect(await balance()).toMatchObject({ balance: before.balance - charged, held: 0 });
    // The conversation holds the question and its answer, the answer as the branch shown.
    const saved = (await (await call("GET", `/api/chat/conversations/${id}`)).json()) as {
      conversation: { leafId: string };
      messages: { id: string; role: string; status: string; creditsCharged: number | null }[];
    };
    expect(saved.messages.map((m) => [m.role, m.status])).toEqual([
      ["user", "done"],
      ["assistant", "done"],
    ]);
    expect(saved.conversation.leafId).toBe(start.messageId);
  });

  it("goes on writing when the connection drops, and the answer is resumed whole, charged once", async () => {
    const before = await balance();
    const id = await conversation();
    const first = await readStream(await ask(id, "a glass greenhouse at night"), (chunks) =>
      chunks.some((c) => c.type === "text-delta"),
    );
    const messageId = first[0]!.messageId!;
    const resumed = await readStream(await call("GET", `/api/chat/messages/${messageId}/stream`));
    expect(textOf(resumed)).toBe(promptHelperAnswer("a glass greenhouse at night", "en"));
    const outcome = outcomeOf(resumed)!;
    expect(outcome.status).toBe("done");
    expect(await balance()).toMatchObject({ balance: before.balance - (outcome.creditsCharged as number), held: 0 });
    // Someone else cannot read it.
    expect((await call("GET", `/api/chat/messages/${messageId}/stream`, undefined, other)).status).toBe(404);
  });

  it("stops an answer when its author asks, keeping and charging what was written", async () => {
    const before = await balance();
    const id = await conversation();
    const res = await ask(id, "a snowy mountain village at dusk");
    let stopped: Promise<Response> | undefined;
    const chunks = await readStream(res, (seen) => {
      if (!stopped && seen.some((c) => c.type === "text-delta"))
        stopped = call("POST", `/api/chat/messages/${seen[0]!.messageId}/stop`);
      return false;
    });
    expect((await stopped!).status).toBe(202);
    const outcome = outcomeOf(chunks)!;
    expect(outcome.status).toBe("stopped");
    expect(textOf(chunks).length).toBeLessThan(promptHelperAnswer("a snowy mountain village at dusk", "en").length);
    expect(await balance()).toMatchObject({ balance: before.balance - (outcome.creditsCharged as number), held: 0 });
    // Stopping it again: it has ended.
    expect((await call("POST", `/api/chat/messages/${chunks[0]!.messageId}/stop`)).status).toBe(409);
  });

  it("refuses bad questions with a clear message and changes nothing", async () => {
    const id = await conversation();
    const before = await balance();
    const empty = await call("POST", `/api/chat/conversations/${id}/messages`, { text: "   " });
    expect(empty.status).toBe(422);
    const body = (await empty.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("chat_message_invalid");
    expect(body.error.message).toBe(text("en", "messages", "chat.errors.messageLength").replace("{{max}}", "8000"));
    expect((await call("POST", `/api/chat/conversations/${id}/messages`, { text: "x".repeat(8001) })).status).toBe(422);
    expect((await call("POST", `/api/chat/conversations/${id}/messages`, "not an object")).status).toBe(422);
    const unknown = await call("POST", "/api/chat/conversations", { model: "no-such-model" });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe("unknown_model");
    // Another account's conversation does not exist for this one.
    expect((await call("GET", `/api/chat/conversations/${id}`, undefined, other)).status).toBe(404);
    expect((await call("POST", `/api/chat/conversations/${id}/messages`, { text: "hi" }, other)).status).toBe(404);
    // Signed out: 401.
    expect((await fetch(`${server.url}/api/chat/models`)).status).toBe(401);
    expect(await balance()).toEqual(before);
  });

  it("keeps a tree: regenerated answers and edited questions are siblings, any branch can be shown", async () => {
    const id = await conversation();
    const first = await readStream(await ask(id, "a lighthouse on a cliff"));
    const answer = first[0]!.messageId!;
    const question = first[0]!.messageMetadata!.parentId as string;
    // Another answer to the same question.
    const again = await readStream(await call("POST", `/api/chat/messages/${answer}/regenerate`));
    expect(outcomeOf(again)!.status).toBe("done");
    // The question edited: a new first question, answered.
    const edited = await readStream(
      await call("POST", `/api/chat/conversations/${id}/messages`, { text: "a lighthouse in the fog", parentId: null }),
    );
    type Saved = {
      conversation: { title: string; leafId: string };
      messages: { id: string; parentId: string | null; role: string }[];
    };
    const tree = async () => (await (await call("GET", `/api/chat/conversations/${id}`)).json()) as Saved;
    let saved = await tree();
    const answersTo = (parent: string | null) => saved.messages.filter((m) => m.parentId === parent).map((m) => m.id);
    expect(answersTo(question).sort()).toEqual([answer, again[0]!.messageId!].sort());
    expect(saved.messages.filter((m) => m.parentId === null).map((m) => m.role)).toEqual(["user", "user"]);
    expect(saved.conversation.leafId).toBe(edited[0]!.messageId);
    // Named after its first question once answered.
    expect(saved.conversation.title).toBe("a lighthouse on a cliff");
    // Back to the first answer's branch.
    expect((await call("PATCH", `/api/chat/conversations/${id}`, { leafId: answer })).status).toBe(204);
    saved = await tree();
    expect(saved.conversation.leafId).toBe(answer);
  });

  it("lists, searches, renames, pins, files and deletes conversations", async () => {
    const id = await conversation();
    await readStream(await ask(id, "a harbour full of wooden sailboats"));
    const list = async (query = "") =>
      (
        (await (await call("GET", `/api/chat/conversations${query}`)).json()) as {
          conversations: { id: string; title: string; pinned: boolean; folderId: string | null }[];
        }
      ).conversations;
    // By a word of its title, and by a word only its answer has (the helper's phrases), in any case.
    expect((await list("?q=sailboats")).map((c) => c.id)).toEqual([id]);
    expect((await list("?q=HARBOUR")).map((c) => c.id)).toEqual([id]);
    expect(await list("?q=zeppelin")).toEqual([]);
    expect((await list("?q=prompt")).map((c) => c.id)).toContain(id);
    // Renamed and pinned: first in the list.
    expect(
      (await call("PATCH", `/api/chat/conversations/${id}`, { title: "Harbour ideas", pinned: true })).status,
    ).toBe(204);
    expect((await list())[0]).toMatchObject({ id, title: "Harbour ideas", pinned: true });
    // Filed in a folder.
    const folder = await call("POST", "/api/chat/folders", { name: "Boats" });
    expect(folder.status).toBe(201);
    const folderId = ((await folder.json()) as { folder: { id: string } }).folder.id;
    expect((await call("PATCH", `/api/chat/conversations/${id}`, { folderId })).status).toBe(204);
    expect((await list(`?folder=${folderId}`)).map((c) => c.id)).toEqual([id]);
    // Someone else's folder cannot be used, nor someone else's conversation changed.
    expect((await call("PATCH", `/api/chat/conversations/${id}`, { pinned: false }, other)).status).toBe(404);
    expect((await call("PATCH", `/api/chat/conversations/${id}`, { unknown: 1 })).status).toBe(400);
    // Deleted: gone, with its messages.
    expect((await call("DELETE", `/api/chat/conversations/${id}`)).status).toBe(204);
    expect((await call("GET", `/api/chat/conversations/${id}`)).status).toBe(404);
    expect((await list()).map((c) => c.id)).not.toContain(id);
  });

  it("keeps a question asked without credits, and answers it once credits are there again", async () => {
    const poor = await signedIn(server, origin, "poor@example.com");
    const created = await call("POST", "/api/chat/conversations", { model: "prompt-helper" }, poor);
    const id = ((await created.json()) as { conversation: { id: string } }).conversation.id;
    // Asked all at once: each answer holds what it may cost, so the bonus covers a few; the others are refused.
    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        call("POST", `/api/chat/conversations/${id}/messages`, { text: "a windmill", parentId: null }, poor),
      ),
    );
    const refused = results.filter((r) => r.status === 402);
    expect(refused.length).toBeGreaterThan(0);
    expect(((await refused[0]!.json()) as { error: { code: string } }).error.code).toBe("insufficient_credits");
    for (const r of results.filter((r) => r.status === 200)) await readStream(r);
    const credits = async () =>
      ((await (await call("GET", "/api/me", undefined, poor)).json()) as { credits: { balance: number; held: number } })
        .credits;
    expect((await credits()).held).toBe(0);
    // The unanswered questions stay; now that the holds are settled there are credits again, and one is answered.
    const saved = (await (await call("GET", `/api/chat/conversations/${id}`, undefined, poor)).json()) as {
      messages: { id: string; role: string; parentId: string | null }[];
    };
    const answered = new Set(saved.messages.filter((m) => m.role === "assistant").map((m) => m.parentId));
    const waiting = saved.messages.filter((m) => m.role === "user" && !answered.has(m.id));
    expect(waiting.length).toBe(refused.length);
    const before = await credits();
    const answer = await readStream(
      await call("POST", `/api/chat/messages/${waiting[0]!.id}/regenerate`, undefined, poor),
    );
    const outcome = outcomeOf(answer)!;
    expect(outcome.status).toBe("done");
    expect(await credits()).toMatchObject({ balance: before.balance - (outcome.creditsCharged as number), held: 0 });
  });
  type ToolPart = {
    type: string;
    toolCallId: string;
    output: { status: string; generationId?: string; cost?: number; tool?: string };
  };
  const partsOf = async (id: string, messageId: string) => {
    const saved = (await (await call("GET", `/api/chat/conversations/${id}`)).json()) as {
      messages: { id: string; parts: (ToolPart | { type: "text"; text: string })[] }[];
    };
    return saved.messages.find((m) => m.id === messageId)!.parts;
  };
  const generation = async (generationId: string) =>
    (
      (await (await call("GET", `/api/generations/${generationId}`)).json()) as {
        generation: {
          status: string;
          tool: string;
          prompt: string;
          outputs: { url: string }[];
          creditsCharged: number;
        };
      }
    ).generation;

  it("draws an image when asked in the asker's language: the offline image model makes it with their credits", async () => {
    const before = await balance();
    const id = await conversation();
    const chunks = await readStream(await ask(id, "Zeichne einen Leuchtturm im Sturm", "de"));
    const messageId = chunks[0]!.messageId!;
    const result = chunks.find((c) => c.type === "tool-output-available") as unknown as ToolPart | undefined;
    expect(result?.output).toMatchObject({ status: "started", tool: "text-to-image", cost: 1 });
    const generationId = result!.output.generationId!;
    // The prompt it wrote is the one the image is made from; then it says what it did.
    const made = await expect
      .poll(async () => (await generation(generationId)).status, { timeout: 30_000 })
      .toBe("succeeded")
      .then(() => generation(generationId));
    expect(made.tool).toBe("text-to-image");
    expect(made.prompt.startsWith("einen Leuchtturm im Sturm")).toBe(true);
    expect(made.outputs).toHaveLength(1);
    expect(textOf(chunks)).toContain(made.prompt);
    expect(textOf(chunks).endsWith(text("de", "chat", "helper.started"))).toBe(true);
    // Saved in order: the prompt, the call with what it did, the words after it.
    const parts = await partsOf(id, messageId);
    expect(parts.map((p) => p.type)).toEqual(["text", "tool-generate_image", "text"]);
    // The answer and the image each charged once.
    const outcome = outcomeOf(chunks)!;
    expect(await balance()).toMatchObject({
      balance: before.balance - (outcome.creditsCharged as number) - made.creditsCharged,
      held: 0,
    });
  });

  it("asks before starting a video that costs more than the threshold, and starts it once when confirmed", async () => {
    const id = await conversation();
    const chunks = await readStream(await ask(id, "make a video of a fox running through the snow"));
    const messageId = chunks[0]!.messageId!;
    const waiting = chunks.find((c) => c.type === "tool-output-available") as unknown as ToolPart;
    expect(waiting.output).toMatchObject({ status: "awaiting_confirmation", tool: "text-to-video", cost: 5 });
    expect(textOf(chunks).endsWith(text("en", "chat", "helper.confirm"))).toBe(true);
    const before = await balance();
    const listed = async () =>
      ((await (await call("GET", "/api/generations?kind=video")).json()) as { items: unknown[] }).items.length;
    const videos = await listed();
    // Confirmed twice at once: one video, held once.
    const path = `/api/chat/messages/${messageId}/tools/${waiting.toolCallId}`;
    const [first, second] = await Promise.all([
      call("POST", path, { confirm: true }),
      call("POST", path, { confirm: true }),
    ]);
    expect([first.status, second.status]).toEqual([200, 200]);
    const outputs = (await Promise.all([first.json(), second.json()])) as { output: ToolPart["output"] }[];
    expect(outputs[0]!.output.status).toBe("started");
    expect(outputs[1]!.output.generationId).toBe(outputs[0]!.output.generationId);
    expect(await listed()).toBe(videos + 1);
    await expect
      .poll(async () => (await generation(outputs[0]!.output.generationId!)).status, { timeout: 60_000 })
      .toBe("succeeded");
    expect(await balance()).toMatchObject({ balance: before.balance - 5, held: 0 });
    const parts = await partsOf(id, messageId);
    expect(parts.find((p) => p.type === "tool-generate_video")).toMatchObject({
      output: { status: "started", generationId: outputs[0]!.output.generationId },
    });
    // Answered: it cannot be declined now, nor another's call confirmed.
    expect((await call("POST", path, { confirm: false })).status).toBe(409);
    expect((await call("POST", path, { confirm: true }, other)).status).toBe(404);
    expect((await call("POST", path, { confirm: "yes" })).status).toBe(422);
  });

  it("starts nothing when a tool call is declined", async () => {
    const id = await conversation();
    const chunks = await readStream(await ask(id, "make a video of waves on a beach"));
    const waiting = chunks.find((c) => c.type === "tool-output-available") as unknown as ToolPart;
    const before = await balance();
    const res = await call("POST", `/api/chat/messages/${chunks[0]!.messageId}/tools/${waiting.toolCallId}`, {
      confirm: false,
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { output: { status: string } }).output.status).toBe("declined");
    expect(await balance()).toEqual(before);
  });

  const upload = (as = cookie) => uploadImage(server, origin, as);

  it("keeps the images a question shows, and draws from one of them with the offline model (image to image)", async () => {
    // An account of its own: the others' credits went to the images and videos above.
    const painter = await signedIn(server, origin, "painter@example.com");
    const created = await call("POST", "/api/chat/conversations", { model: "prompt-helper" }, painter);
    const id = ((await created.json()) as { conversation: { id: string } }).conversation.id;
    const image = await upload(painter);
    const chunks = await readStream(
      await call(
        "POST",
        `/api/chat/conversations/${id}/messages`,
        { text: "draw it as a watercolour", attachments: [image] },
        painter,
      ),
    );
    const result = chunks.find((c) => c.type === "tool-output-available") as unknown as ToolPart;
    expect(result.output, JSON.stringify(result.output)).toMatchObject({ status: "started", tool: "image-to-image" });
    const made = async () =>
      (
        (await (await call("GET", `/api/generations/${result.output.generationId}`, undefined, painter)).json()) as {
          generation: { status: string };
        }
      ).generation.status;
    await expect.poll(made, { timeout: 30_000 }).toBe("succeeded");
    const questionId = chunks[0]!.messageMetadata!.parentId as string;
    const saved = (await (await call("GET", `/api/chat/conversations/${id}`, undefined, painter)).json()) as {
      messages: { id: string; parts: unknown[] }[];
    };
    expect(saved.messages.find((m) => m.id === questionId)!.parts).toEqual([
      { type: "text", text: "draw it as a watercolour" },
      { type: "file", mediaType: "image/webp", assetId: image, url: `/media/${image}.webp` },
    ]);
    // The page shows it from there, to its owner only.
    const shown = await call("GET", `/media/${image}.webp`, undefined, painter);
    expect([shown.status, shown.headers.get("content-type")]).toEqual([200, "image/webp"]);
    expect((await call("GET", `/media/${image}.webp`, undefined, other)).status).toBe(404);
  });

  it("changes the conversation's last image when asked: removes its background, upscales it ×4 and animates it (confirmed first), each charged once to the author", async () => {
    // An account of its own, so that its balance tells what these cost.
    const editor = await signedIn(server, origin, "editor@example.com");
    const as = (method: string, path: string, body?: unknown) => call(method, path, body, editor);
    const credits = async () =>
      ((await (await as("GET", "/api/me")).json()) as { credits: { balance: number; held: number } }).credits;
    const id = (
      (await (await as("POST", "/api/chat/conversations", { model: "prompt-helper" })).json()) as {
        conversation: { id: string };
      }
    ).conversation.id;
    type Output = ToolPart["output"] & {
      prompt?: string;
      from?: { assetId: string; generationId?: string; tool?: string };
      variation?: boolean;
    };
    const say = async (question: string) => {
      const chunks = await readStream(await as("POST", `/api/chat/conversations/${id}/messages`, { text: question }));
      const part = chunks.find((c) => c.type === "tool-output-available") as unknown as ToolPart | undefined;
      return {
        messageId: chunks[0]!.messageId!,
        toolCallId: part?.toolCallId,
        output: part?.output as Output | undefined,
        charged: outcomeOf(chunks)!.creditsCharged as number,
      };
    };
    type Made = {
      id: string;
      status: string;
      tool: string;
      params: { scale?: number; parentId?: string };
      input: { id: string } | null;
      outputs: { id: string; mimeType: string }[];
      creditsCharged: number;
    };
    const read = async (generationId: string) =>
      ((await (await as("GET", `/api/generations/${generationId}`)).json()) as { generation: Made }).generation;
    const finished = async (generationId: string) => {
      await expect.poll(async () => (await read(generationId)).status, { timeout: 60_000 }).toBe("succeeded");
      return read(generationId);
    };

    // Nothing to change yet: said so, nothing started.
    const none = await say("remove its background");
    expect(none.output).toMatchObject({
      status: "refused",
      message: text("en", "messages", "chat.errors.noImage"),
    });

    const drawn = await say("make an image of a red apple on a table");
    expect(drawn.output).toMatchObject({ status: "started", tool: "text-to-image" });
    const apple = await finished(drawn.output!.generationId!);

    // "Remove its background": the apple, cut out; its input is the apple, linked as its parent; charged once.
    let before = await credits();
    const cut = await say("remove its background");
    expect(cut.output).toMatchObject({
      status: "started",
      tool: "remove-background",
      cost: 1,
      prompt: "",
      from: { assetId: apple.outputs[0]!.id, generationId: apple.id, tool: "text-to-image" },
    });
    const cutOut = await finished(cut.output!.generationId!);
    expect([cutOut.tool, cutOut.input?.id, cutOut.params.parentId]).toEqual([
      "remove-background",
      apple.outputs[0]!.id,
      apple.id,
    ]);
    expect(cutOut.creditsCharged).toBe(1);
    expect(await credits()).toMatchObject({ balance: before.balance - cut.charged - 1, held: 0 });
    const saved = (await (await as("GET", `/api/chat/conversations/${id}`)).json()) as {
      messages: { id: string; parts: { type: string }[] }[];
    };
    expect(saved.messages.find((m) => m.id === cut.messageId)!.parts.map((p) => p.type)).toContain(
      "tool-remove_background",
    );

    // "Make it 4× larger": the last image now is the cut-out.
    before = await credits();
    const larger = await say("make it 4× larger");
    expect(larger.output).toMatchObject({ status: "started", tool: "upscale", cost: 1 });
    const upscaled = await finished(larger.output!.generationId!);
    expect([upscaled.tool, upscaled.params.scale, upscaled.input?.id, upscaled.params.parentId]).toEqual([
      "upscale",
      4,
      cutOut.outputs[0]!.id,
      cutOut.id,
    ]);
    expect(await credits()).toMatchObject({ balance: before.balance - larger.charged - 1, held: 0 });

    // "Animate the last image": a video costs more than the threshold, so it waits for its author; nothing is held
    // until it is confirmed, then it is charged once.
    before = await credits();
    const animated = await say("animate the last image");
    expect(animated.output).toMatchObject({
      status: "awaiting_confirmation",
      tool: "image-to-video",
      cost: 5,
      from: { assetId: upscaled.outputs[0]!.id, generationId: upscaled.id },
    });
    expect(await credits()).toMatchObject({ balance: before.balance - animated.charged, held: 0 });
    const confirmed = await as("POST", `/api/chat/messages/${animated.messageId}/tools/${animated.toolCallId}`, {
      confirm: true,
    });
    expect(confirmed.status).toBe(200);
    const started = ((await confirmed.json()) as { output: Output }).output;
    expect(started).toMatchObject({
      status: "started",
      tool: "image-to-video",
      from: { assetId: upscaled.outputs[0]!.id },
    });
    const video = await finished(started.generationId!);
    expect([video.tool, video.input?.id, video.params.parentId, video.outputs[0]?.mimeType]).toEqual([
      "image-to-video",
      upscaled.outputs[0]!.id,
      upscaled.id,
      "video/mp4",
    ]);
    expect(await credits()).toMatchObject({ balance: before.balance - animated.charged - 5, held: 0 });

    // Variations of the last result: the same request again, linked to it.
    const varied = await say("variations of it");
    expect(varied.output).toMatchObject({
      status: "awaiting_confirmation",
      tool: "image-to-video",
      cost: 5,
      variation: true,
      from: { generationId: video.id },
    });
  });

  it("refuses images it cannot attach with a clear message, saving nothing", async () => {
    const id = await conversation();
    const mine = await upload();
    const theirs = await upload(other);
    const count = async () =>
      ((await (await call("GET", `/api/chat/conversations/${id}`)).json()) as { messages: unknown[] }).messages.length;
    const refused = async (attachments: unknown, key: string, values: Record<string, string> = {}) => {
      const res = await call("POST", `/api/chat/conversations/${id}/messages`, { text: "look", attachments });
      expect(res.status).toBe(422);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe("chat_attachments_invalid");
      let message = text("en", "messages", key);
      for (const [name, value] of Object.entries(values)) message = message.replace(`{{${name}}}`, value);
      expect(body.error.message).toBe(message);
    };
    await refused([mine, ...Array.from({ length: 4 }, () => randomUUID())], "chat.errors.tooManyImages", { max: "4" });
    await refused([theirs], "chat.errors.imageUnknown");
    await refused(["not-an-id"], "chat.errors.imageUnknown");
    await refused([mine, "00000000-0000-4000-8000-000000000000"], "chat.errors.imageUnknown");
    expect(await count()).toBe(0);
  });

  it("shares a conversation as a read-only link until it is stopped, and exports it", async () => {
    const id = await conversation();
    await readStream(await ask(id, "a quiet harbour at dawn"));
    const shared = await call("POST", `/api/chat/conversations/${id}/share`);
    expect(shared.status).toBe(201);
    const { share } = (await shared.json()) as { share: { path: string } };
    expect(share.path).toMatch(/^\/share\/chat\/[\w-]{32}$/);
    // Anyone can read it, signed out; it is kept out of search engines.
    const page = await fetch(`${server.url}/fr${share.path}`);
    expect(page.status).toBe(200);
    expect(page.headers.get("x-robots-tag")).toContain("noindex");
    const html = await page.text();
    expect(html).toContain("a quiet harbour at dawn");
    expect(html).toContain(text("fr", "chat", "shared.kicker"));
    expect(html).toContain('content="noindex');
    // A question asked after sharing stays private.
    await readStream(await ask(id, "a lighthouse keeper's cottage"));
    expect(await (await fetch(`${server.url}${share.path}`)).text()).not.toContain("a lighthouse keeper's cottage");
    // A new link replaces the old one; stopping ends it; a made-up one does not exist.
    const renewed = (
      (await (await call("POST", `/api/chat/conversations/${id}/share`)).json()) as { share: { path: string } }
    ).share;
    expect((await fetch(`${server.url}${share.path}`)).status).toBe(404);
    expect((await fetch(`${server.url}${renewed.path}`)).status).toBe(200);
    expect((await call("DELETE", `/api/chat/conversations/${id}/share`)).status).toBe(204);
    expect((await fetch(`${server.url}${renewed.path}`)).status).toBe(404);
    expect((await fetch(`${server.url}/share/chat/${"x".repeat(32)}`)).status).toBe(404);
    expect((await call("POST", `/api/chat/conversations/${id}/share`, undefined, other)).status).toBe(404);

    // Exported: the branch shown as Markdown, in the asker's words; the whole tree as JSON.
    const markdown = await call("GET", `/api/chat/conversations/${id}/export?format=markdown&locale=de`);
    expect(markdown.headers.get("content-type")).toContain("text/markdown");
    expect(markdown.headers.get("content-disposition")).toBe(
      `attachment; filename="a-quiet-harbour-at-dawn.md"; filename*=UTF-8''a-quiet-harbour-at-dawn.md`,
    );
    const md = await markdown.text();
    expect(md).toContain(`## ${text("de", "chat", "export.you")}\n\na quiet harbour at dawn`);
    expect(md).toContain(`## ${text("de", "chat", "export.assistant")}`);
    const json = (await (await call("GET", `/api/chat/conversations/${id}/export?format=json`)).json()) as {
      id: string;
      messages: { role: string; parentId: string | null; text: string }[];
    };
    expect(json.id).toBe(id);
    expect(json.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect((await call("GET", `/api/chat/conversations/${id}/export`, undefined, other)).status).toBe(404);
  });

  it("slows down an account asking too fast, in its language, and saves nothing past the limit", async () => {
    const hasty = await signedIn(server, origin, "hasty@example.com");
    const created = await call("POST", "/api/chat/conversations", { model: "prompt-helper" }, hasty);
    const id = ((await created.json()) as { conversation: { id: string } }).conversation.id;
    // Saved without answers (nothing to pay for), one after the other: 30 a minute are let through.
    let last: Response | undefined;
    for (let i = 0; i < 31; i++)
      last = await call(
        "POST",
        `/api/chat/conversations/${id}/messages`,
        { text: `idea ${i}`, parentId: null, answer: false },
        hasty,
        { "X-Locale": "es" },
      );
    expect(last!.status).toBe(429);
    const body = (await last!.json()) as { error: { code: string; message: string } };
    expect(body.error).toMatchObject({ code: "rate_limited", message: text("es", "common", "error.tooMany") });
    const saved = (await (await call("GET", `/api/chat/conversations/${id}`, undefined, hasty)).json()) as {
      messages: unknown[];
    };
    expect(saved.messages).toHaveLength(30);
  });

  it("slows down an account writing conversations, folders, links and changes too fast, and keeps nothing past the limit", async () => {
    const busy = await signedIn(server, origin, "busy@example.com");
    const fr = { "X-Locale": "fr" };
    const slowDown = { code: "rate_limited", message: text("fr", "common", "error.tooMany") };
    /** Sends `make` until it is refused; returns the answers that were not. */
    const untilRefused = async (what: string, make: () => Promise<Response>, limit: number) => {
      const accepted: Response[] = [];
      for (let i = 0; i <= limit; i++) {
        const res = await make();
        if (res.status === 429) {
          expect(((await res.json()) as { error: object }).error, what).toMatchObject(slowDown);
          break;
        }
        expect(res.status, what).toBeLessThan(300);
        accepted.push(res);
      }
      expect(accepted, what).toHaveLength(limit);
      return accepted;
    };

    // The per-account limits (server/modules/rate-limits/account-actions.ts).
    const made = await untilRefused(
      "conversations",
      () => call("POST", "/api/chat/conversations", { model: "prompt-helper" }, busy, fr),
      30,
    );
    const ids = await Promise.all(
      made.map(async (r) => ((await r.json()) as { conversation: { id: string } }).conversation.id),
    );
    const listed = (await (await call("GET", "/api/chat/conversations", undefined, busy)).json()) as {
      conversations: unknown[];
    };
    expect(listed.conversations).toHaveLength(30);

    await untilRefused("folders", () => call("POST", "/api/chat/folders", { name: "Ideas" }, busy, fr), 30);
    // A conversation with a question in it, to be shared.
    await readStream(await call("POST", `/api/chat/conversations/${ids[0]}/messages`, { text: "a red kite" }, busy));
    await untilRefused(
      "share links",
      () => call("POST", `/api/chat/conversations/${ids[0]}/share`, undefined, busy, fr),
      30,
    );
    await untilRefused(
      "renames",
      () => call("PATCH", `/api/chat/conversations/${ids[1]}`, { title: "Renamed again" }, busy, fr),
      120,
    );
    // The others' writes are their own.
    expect((await call("POST", "/api/chat/folders", { name: "Mine" }, other)).status).toBe(201);
  });

  it("answers 404, never a 500, for an id that is not one", async () => {
    const bad = "not-an-id";
    const answers = await Promise.all([
      call("GET", `/api/chat/conversations/${bad}`),
      call("PATCH", `/api/chat/conversations/${bad}`, { pinned: true }),
      call("DELETE", `/api/chat/conversations/${bad}`),
      call("POST", `/api/chat/conversations/${bad}/messages`, { text: "hello" }),
      call("POST", `/api/chat/messages/${bad}/regenerate`, {}),
      call("POST", `/api/chat/messages/${bad}/continue`, {}),
      call("POST", `/api/chat/messages/${bad}/stop`, {}),
      call("GET", `/api/chat/messages/${bad}/stream`),
      call("GET", `/dashboard/chat/${bad}`),
    ]);
    expect(answers.map((r) => r.status)).toEqual(Array(answers.length).fill(404));
  });
});
