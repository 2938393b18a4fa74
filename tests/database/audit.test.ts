import { asc, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { adminAction } from "#server/db/schema/index.ts";
import { CLI_ACTOR, type AdminActor } from "#server/modules/audit/record-admin-action.ts";
import { setRole } from "#server/modules/users/set-role.ts";
import { setBan } from "#server/modules/users/set-ban.ts";
import { adjustCredits } from "#server/modules/credits/adjust-credits.ts";
import { createCodes } from "#server/modules/credits/create-codes.ts";
import { disableCodeBatch } from "#server/modules/credits/disable-code-batch.ts";
import { redeemCode } from "#server/modules/credits/redeem-code.ts";
import { getBalance } from "#server/modules/credits/ledger.ts";
import { backends, insertUser, migratedDatabase } from "#tests/support/backends.ts";

describe.each(backends)("the audit log of administrators' actions on $name", (backend) => {
  const db = migratedDatabase(backend);

  const entriesFor = (targetId: string) =>
    db().select().from(adminAction).where(eq(adminAction.targetId, targetId)).orderBy(asc(adminAction.id));

  it("records each operator action with its actor, target, before and after, in the action's transaction", async () => {
    const id = await insertUser(db(), "Audited");
    const email = `${id}@example.com`;
    const console: AdminActor = { id: "admin-1", label: "chief@example.com", ip: "203.0.113.9" };
    expect(await setRole({ db: db(), account: { email }, role: "admin", actor: CLI_ACTOR })).toBe(true);
    expect(await setBan({ db: db(), account: { email }, banned: true, reason: "spam", actor: console })).toBe(true);
    expect(await setBan({ db: db(), account: { email }, banned: false, actor: CLI_ACTOR })).toBe(true);
    await adjustCredits({ db: db(), account: { email }, amount: 50, actor: console, reason: "goodwill" });
    // Refused (more than is available): nothing done, nothing written.
    await expect(adjustCredits({ db: db(), account: { email }, amount: -500, actor: console })).rejects.toMatchObject({
      code: "insufficient_credits",
    });
    // No such account: nothing written either.
    expect(await setRole({ db: db(), account: { email: "nobody@example.com" }, role: "admin", actor: CLI_ACTOR })).toBe(
      false,
    );

    const entries = await entriesFor(id);
    expect(
      entries.map((e) => [e.action, e.actor, e.actorId, e.targetLabel, e.before, e.after, e.reason, e.ip]),
    ).toEqual([
      ["role.grant", "cli", null, email, { role: "user" }, { role: "admin" }, null, null],
      [
        "user.ban",
        "chief@example.com",
        "admin-1",
        email,
        { banned: false, reason: null },
        { banned: true, reason: "spam" },
        "spam",
        "203.0.113.9",
      ],
      ["user.unban", "cli", null, email, { banned: true, reason: "spam" }, { banned: false, reason: null }, null, null],
      [
        "credits.adjust",
        "chief@example.com",
        "admin-1",
        email,
        { balance: 0 },
        { balance: 50, change: 50 },
        "goodwill",
        "203.0.113.9",
      ],
    ]);
    expect(entries.every((e) => e.createdAt instanceof Date)).toBe(true);

    const { batch, batchId, codes } = await createCodes({
      db: db(),
      credits: 10,
      maxUses: 2,
      count: 3,
      batch: `b-${id}`,
      actor: CLI_ACTOR,
    });
    expect(await redeemCode({ db: db(), userId: id, code: codes[0]! })).toMatchObject({ credits: 10 });
    // Withdrawn: once, in the log; its codes refused from then on, what was redeemed kept.
    expect(await disableCodeBatch({ db: db(), batchId, actor: console })).toBe(true);
    expect(await disableCodeBatch({ db: db(), batchId, actor: console })).toBe(false);
    await expect(redeemCode({ db: db(), userId: id, code: codes[1]! })).rejects.toMatchObject({
      code: "code_disabled",
    });
    expect((await getBalance({ db: db(), userId: id })).balance).toBe(60);
    expect(await entriesFor(batchId)).toMatchObject([
      {
        action: "codes.create",
        targetType: "codes",
        targetLabel: batch,
        after: { count: 3, credits: 10, maxUses: 2, expiresAt: null },
      },
      { action: "codes.disable", actor: "chief@example.com", targetLabel: batch, after: { disabled: true } },
    ]);
  });

  /** The database's own refusal, under the query builder's "Failed query" wrapping. */
  const refusal = (work: Promise<unknown>) =>
    work.then(
      () => "done",
      (e: Error & { cause?: Error }) => String(e.cause?.message ?? e.message),
    );

  it("is append-only: the database refuses to change or remove an entry", async () => {
    const id = await insertUser(db(), "Immutable");
    await setRole({ db: db(), account: { email: `${id}@example.com` }, role: "admin", actor: CLI_ACTOR });
    expect(
      await refusal(db().update(adminAction).set({ actor: "someone else" }).where(eq(adminAction.targetId, id))),
    ).toMatch(/append-only/);
    expect(await refusal(db().delete(adminAction).where(eq(adminAction.targetId, id)))).toMatch(/append-only/);
    expect(await refusal(db().execute(sql`truncate admin_action`))).toMatch(/append-only/);
  });
});
