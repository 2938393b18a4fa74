import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { creditEntry, creditHold, creditLot, redemptionCode, user } from "#server/db/schema/index.ts";
import {
  getBalance,
  grantCredits,
  holdCredits,
  settleHold,
  takeBackCredits,
  MAX_CREDIT_AMOUNT,
} from "#server/modules/credits/ledger.ts";
import { grantSignupBonus } from "#server/modules/credits/grant-signup-bonus.ts";
import { expireCredits, expiringCredits } from "#server/modules/credits/expire-credits.ts";
import { listEntries } from "#server/modules/credits/list-entries.ts";
import { createCodes } from "#server/modules/credits/create-codes.ts";
import { redeemCode } from "#server/modules/credits/redeem-code.ts";
import { normalizeCode } from "#server/modules/credits/redemption-codes.ts";
import { AppError } from "#server/errors.ts";
import { backends, insertUser, migratedDatabase } from "#tests/support/backends.ts";

const codeOf = (error: unknown) => (error instanceof AppError ? error.code : String(error));

describe.each(backends)("the credit ledger on $name", (backend) => {
  const db = migratedDatabase(backend);

  const newUser = () => insertUser(db(), "Credit");
  const key = () => randomUUID();

  /** Balance = sum of entries; held = open holds; nothing negative; every hold settled at most once. */
  async function expectConsistent(userId: string) {
    const { balance, held, available } = await getBalance({ db: db(), userId });
    const [sums] = await db()
      .select({
        amount: sql<string>`coalesce(sum(${creditEntry.amount}), 0)::text`,
        held: sql<string>`coalesce(sum(${creditEntry.heldChange}), 0)::text`,
      })
      .from(creditEntry)
      .where(eq(creditEntry.userId, userId));
    const [open] = await db()
      .select({ total: sql<string>`coalesce(sum(${creditHold.amount}), 0)::text` })
      .from(creditHold)
      .where(sql`${creditHold.userId} = ${userId} and ${creditHold.status} = 'open'`);
    expect(balance).toBe(Number(sums!.amount));
    expect(held).toBe(Number(sums!.held));
    expect(held).toBe(Number(open!.total));
    expect(balance).toBeGreaterThanOrEqual(0);
    expect(available).toBeGreaterThanOrEqual(0);
    const settlements = await db()
      .select({ holdId: creditEntry.holdId, n: sql<string>`count(*)::text` })
      .from(creditEntry)
      .where(sql`${creditEntry.userId} = ${userId} and ${creditEntry.kind} in ('capture', 'release')`)
      .groupBy(creditEntry.holdId);
    for (const s of settlements) expect(s.n).toBe("1");
    // The lots hold the balance, no more, no less.
    const [lots] = await db()
      .select({ remaining: sql<string>`coalesce(sum(${creditLot.remaining}), 0)::text` })
      .from(creditLot)
      .where(eq(creditLot.userId, userId));
    expect(Number(lots!.remaining)).toBe(balance);
    return { balance, held, available };
  }

  const DAY = 86_400_000;
  const inDays = (days: number) => new Date(Date.now() + days * DAY);
  /** What is left of each of the account's lots, by its grant's reference. */
  const lotsOf = async (userId: string) =>
    Object.fromEntries(
      (await db().select().from(creditLot).where(eq(creditLot.userId, userId))).map((lot) => [
        lot.reference,
        lot.remaining,
      ]),
    );

  describe("lots", () => {
    it("spends the credits that expire first, and takes a refunded grant back from its own lot first", async () => {
      const u = await newUser();
      const grant = (reference: string, amount: number, expiresAt: Date | null) =>
        grantCredits({
          db: db(),
          userId: u,
          amount,
          kind: "purchase",
          reference,
          idempotencyKey: key(),
          lot: { expiresAt },
        });
      await grant("order:month", 10, inDays(30));
      await grant("order:never", 10, null);
      await grant("order:week", 10, inDays(7));
      const { holdId } = await holdCredits({ db: db(), userId: u, amount: 15, idempotencyKey: key() });
      // A hold takes nothing from the lots yet; its capture takes the soonest-expiring first.
      expect(await lotsOf(u)).toEqual({ "order:month": 10, "order:never": 10, "order:week": 10 });
      await settleHold({ db: db(), holdId, as: "capture", charge: 12 });
      expect(await lotsOf(u)).toEqual({ "order:month": 8, "order:never": 10, "order:week": 0 });
      await takeBackCredits({
        db: db(),
        userId: u,
        amount: 12,
        kind: "refund",
        reference: "order:never",
        idempotencyKey: key(),
      });
      expect(await lotsOf(u)).toEqual({ "order:month": 6, "order:never": 0, "order:week": 0 });
      expect(await expiringCredits({ db: db(), userId: u })).toEqual([{ expiresAt: expect.any(Date), credits: 6 }]);
      expect(await expectConsistent(u)).toEqual({ balance: 6, held: 0, available: 6 });
    });

    it("expires what is due as a ledger entry, leaving credits held for work in flight until it is settled", async () => {
      const u = await newUser();
      await grantCredits({
        db: db(),
        userId: u,
        amount: 10,
        kind: "signup_bonus",
        reference: "bonus",
        idempotencyKey: key(),
        lot: { expiresAt: inDays(1) },
      });
      await grantCredits({
        db: db(),
        userId: u,
        amount: 5,
        kind: "purchase",
        reference: "pack",
        idempotencyKey: key(),
      });
      const first = await holdCredits({ db: db(), userId: u, amount: 5, idempotencyKey: key() });
      const second = await holdCredits({ db: db(), userId: u, amount: 7, idempotencyKey: key() });
      // Not due yet: nothing expires.
      expect(await expireCredits({ db: db() })).toMatchObject({ expired: 0 });
      // A day later, only what is not held expires (3 of the bonus's 10), in one entry naming the grant.
      const later = inDays(1.5);
      expect((await expireCredits({ db: db(), now: later })).expired).toBeGreaterThanOrEqual(3);
      expect(await lotsOf(u)).toEqual({ bonus: 7, pack: 5 });
      expect(await expectConsistent(u)).toEqual({ balance: 12, held: 12, available: 0 });
      // A charge takes the expired lot's credits first; a second run takes nothing while the rest is held.
      await settleHold({ db: db(), holdId: first.holdId, as: "capture", charge: 5 });
      expect(await lotsOf(u)).toEqual({ bonus: 2, pack: 5 });
      await expireCredits({ db: db(), now: later });
      expect(await lotsOf(u)).toEqual({ bonus: 2, pack: 5 });
      // Released, the rest of the expired lot goes at the next run; the pack's credits stay.
      await settleHold({ db: db(), holdId: second.holdId, as: "release" });
      await expireCredits({ db: db(), now: later });
      await expireCredits({ db: db(), now: later });
      expect(await lotsOf(u)).toEqual({ bonus: 0, pack: 5 });
      const expiries = await db()
        .select({ amount: creditEntry.amount, reference: creditEntry.reference })
        .from(creditEntry)
        .where(sql`${creditEntry.userId} = ${u} and ${creditEntry.kind} = 'expiry'`)
        .orderBy(creditEntry.id);
      expect(expiries).toEqual([
        { amount: -3, reference: "bonus" },
        { amount: -2, reference: "bonus" },
      ]);
      expect(await expectConsistent(u)).toEqual({ balance: 5, held: 0, available: 5 });
    });

    it("accepts exactly what three lots cover of 200 concurrent holds, and their concurrent charges empty the lots", async () => {
      const u = await newUser();
      await grantCredits({
        db: db(),
        userId: u,
        amount: 9,
        kind: "purchase",
        reference: "a",
        idempotencyKey: key(),
        lot: { expiresAt: inDays(3) },
      });
      await grantCredits({
        db: db(),
        userId: u,
        amount: 7,
        kind: "redemption",
        reference: "b",
        idempotencyKey: key(),
        lot: { expiresAt: inDays(1) },
      });
      await grantCredits({
        db: db(),
        userId: u,
        amount: 4,
        kind: "signup_bonus",
        reference: "c",
        idempotencyKey: key(),
      });
      const outcomes = await Promise.allSettled(
        Array.from({ length: 200 }, () => holdCredits({ db: db(), userId: u, amount: 1, idempotencyKey: key() })),
      );
      const won = outcomes.flatMap((o) => (o.status === "fulfilled" ? [o.value.holdId] : []));
      expect(won).toHaveLength(20);
      expect(await expectConsistent(u)).toEqual({ balance: 20, held: 20, available: 0 });
      // Half charged, concurrently: the soonest-expiring lot goes first, then the next.
      await Promise.all(won.slice(0, 10).map((holdId) => settleHold({ db: db(), holdId, as: "capture", charge: 1 })));
      expect(await lotsOf(u)).toEqual({ a: 6, b: 0, c: 4 });
      await Promise.all(won.slice(10).map((holdId) => settleHold({ db: db(), holdId, as: "capture", charge: 1 })));
      expect(await lotsOf(u)).toEqual({ a: 0, b: 0, c: 0 });
      expect(await expectConsistent(u)).toEqual({ balance: 0, held: 0, available: 0 });
    });
  });

  it("grants, holds, captures for less and releases, with the balance after each entry", async () => {
    const u = await newUser();
    await grantCredits({ db: db(), userId: u, amount: 20, kind: "signup_bonus", idempotencyKey: key() });
    const a = await holdCredits({ db: db(), userId: u, amount: 8, reference: "job:a", idempotencyKey: key() });
    const b = await holdCredits({ db: db(), userId: u, amount: 5, reference: "job:b", idempotencyKey: key() });
    expect(await getBalance({ db: db(), userId: u })).toEqual({ balance: 20, held: 13, available: 7 });
    const captured = await settleHold({ db: db(), holdId: a.holdId, as: "capture", charge: 6 });
    expect(captured.entry).toMatchObject({ kind: "capture", amount: -6, heldChange: -8, balanceAfter: 14 });
    await settleHold({ db: db(), holdId: b.holdId, as: "release" });
    expect(await expectConsistent(u)).toEqual({ balance: 14, held: 0, available: 14 });
    // Each settlement names the job its hold was for, as the hold does.
    const { rows } = await listEntries({ db: db(), userId: u, page: 1, pageSize: 10 });
    expect(rows.map((r) => [r.kind, r.amount, r.heldChange, r.reference?.type, r.reference?.id])).toEqual([
      ["release", 0, -5, "job", "b"],
      ["capture", -6, -8, "job", "a"],
      ["hold", 0, 5, "job", "b"],
      ["hold", 0, 8, "job", "a"],
      ["signup_bonus", 20, 0, undefined, undefined],
    ]);
  });

  it("refuses a hold beyond what is available with the not-enough-credits error, writing nothing", async () => {
    const u = await newUser();
    await grantCredits({ db: db(), userId: u, amount: 3, kind: "purchase", idempotencyKey: key() });
    await holdCredits({ db: db(), userId: u, amount: 2, idempotencyKey: key() });
    const error = await holdCredits({ db: db(), userId: u, amount: 2, idempotencyKey: key() }).catch((e: unknown) => e);
    expect(codeOf(error)).toBe("insufficient_credits");
    expect((error as AppError).messageKey).toBe("msg.generation.insufficientCredits");
    const stranger = await newUser();
    expect(
      codeOf(await holdCredits({ db: db(), userId: stranger, amount: 1, idempotencyKey: key() }).catch((e) => e)),
    ).toBe("insufficient_credits");
    const holds = await db().select().from(creditHold).where(eq(creditHold.userId, u));
    expect(holds).toHaveLength(1);
    expect(await expectConsistent(u)).toEqual({ balance: 3, held: 2, available: 1 });
  });

  it("refuses negative, zero, fractional, huge and non-numeric amounts", async () => {
    const u = await newUser();
    for (const amount of [0, -1, 1.5, MAX_CREDIT_AMOUNT + 1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(
        codeOf(
          await grantCredits({ db: db(), userId: u, amount, kind: "purchase", idempotencyKey: key() }).catch((e) => e),
        ),
      ).toBe("bad_request");
      expect(codeOf(await holdCredits({ db: db(), userId: u, amount, idempotencyKey: key() }).catch((e) => e))).toBe(
        "bad_request",
      );
    }
    expect(await db().select().from(creditEntry).where(eq(creditEntry.userId, u))).toHaveLength(0);
  });

  it("grants once however often and however concurrently the same key arrives", async () => {
    const u = await newUser();
    const k = key();
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        grantCredits({ db: db(), userId: u, amount: 100, kind: "purchase", idempotencyKey: k }),
      ),
    );
    expect(results.filter((r) => !r.repeated)).toHaveLength(1);
    expect(new Set(results.map((r) => r.entry.id)).size).toBe(1);
    await grantSignupBonus({ db: db(), userId: u, amount: 20 });
    await grantSignupBonus({ db: db(), userId: u, amount: 20 });
    expect(await expectConsistent(u)).toEqual({ balance: 120, held: 0, available: 120 });
  });

  it("lets exactly 10 of 200 concurrent holds through a balance that covers 10", async () => {
    const u = await newUser();
    await grantCredits({ db: db(), userId: u, amount: 10, kind: "purchase", idempotencyKey: key() });
    const outcomes = await Promise.allSettled(
      Array.from({ length: 200 }, () => holdCredits({ db: db(), userId: u, amount: 1, idempotencyKey: key() })),
    );
    const won = outcomes.filter((o) => o.status === "fulfilled");
    const lost = outcomes.filter((o): o is PromiseRejectedResult => o.status === "rejected");
    expect(won).toHaveLength(10);
    expect(new Set(lost.map((o) => codeOf(o.reason)))).toEqual(new Set(["insufficient_credits"]));
    expect(await expectConsistent(u)).toEqual({ balance: 10, held: 10, available: 0 });
  });

  it("settles a hold once when capture and release race", async () => {
    const u = await newUser();
    await grantCredits({ db: db(), userId: u, amount: 50, kind: "purchase", idempotencyKey: key() });
    for (let i = 0; i < 10; i++) {
      const { holdId } = await holdCredits({ db: db(), userId: u, amount: 5, idempotencyKey: key() });
      const outcomes = await Promise.allSettled([
        settleHold({ db: db(), holdId, as: "capture", charge: 5 }),
        settleHold({ db: db(), holdId, as: "release" }),
        settleHold({ db: db(), holdId, as: "capture", charge: 5 }),
        settleHold({ db: db(), holdId, as: "release" }),
      ]);
      const fresh = outcomes.filter((o) => o.status === "fulfilled" && !o.value.repeated);
      expect(fresh).toHaveLength(1);
      for (const o of outcomes) if (o.status === "rejected") expect(codeOf(o.reason)).toBe("conflict");
    }
    await expectConsistent(u);
  });

  it("refuses to charge more than was held", async () => {
    const u = await newUser();
    await grantCredits({ db: db(), userId: u, amount: 10, kind: "purchase", idempotencyKey: key() });
    const { holdId } = await holdCredits({ db: db(), userId: u, amount: 3, idempotencyKey: key() });
    expect(codeOf(await settleHold({ db: db(), holdId, as: "capture", charge: 4 }).catch((e) => e))).toBe(
      "bad_request",
    );
    expect(codeOf(await settleHold({ db: db(), holdId: randomUUID(), as: "release" }).catch((e) => e))).toBe(
      "not_found",
    );
    expect(await expectConsistent(u)).toEqual({ balance: 10, held: 3, available: 7 });
  });

  it("takes refunded credits back without going below zero or touching holds, and reports the shortfall", async () => {
    const u = await newUser();
    await grantCredits({ db: db(), userId: u, amount: 100, kind: "purchase", idempotencyKey: key() });
    const { holdId } = await holdCredits({ db: db(), userId: u, amount: 30, idempotencyKey: key() });
    await settleHold({ db: db(), holdId, as: "capture", charge: 30 });
    await holdCredits({ db: db(), userId: u, amount: 20, idempotencyKey: key() });
    const k = key();
    const refund = await takeBackCredits({ db: db(), userId: u, amount: 100, kind: "refund", idempotencyKey: k });
    expect(refund).toMatchObject({ taken: 50, shortfall: 50, repeated: false });
    expect(
      await takeBackCredits({ db: db(), userId: u, amount: 100, kind: "refund", idempotencyKey: k }),
    ).toMatchObject({
      taken: 50,
      shortfall: 50,
      repeated: true,
    });
    expect(await expectConsistent(u)).toEqual({ balance: 20, held: 20, available: 0 });
  });

  it("keeps the ledger append-only, and anonymous after the account is deleted", async () => {
    const u = await newUser();
    await grantCredits({ db: db(), userId: u, amount: 7, kind: "admin_adjustment", idempotencyKey: key() });
    await expect(db().execute(sql`update credit_entry set amount = 700 where user_id = ${u}`)).rejects.toThrow();
    await expect(db().execute(sql`delete from credit_entry where user_id = ${u}`)).rejects.toThrow();
    const before = await db().select().from(creditEntry).where(eq(creditEntry.userId, u));
    await db().delete(user).where(eq(user.id, u));
    const [kept] = await db().select().from(creditEntry).where(eq(creditEntry.id, before[0]!.id));
    expect(kept).toMatchObject({ userId: null, amount: 7, kind: "admin_adjustment" });
    expect(await getBalance({ db: db(), userId: u })).toEqual({ balance: 0, held: 0, available: 0 });
  });

  it("matches a simple model over random sequences of operations, some of them concurrent", async () => {
    const op = fc.oneof(
      fc.record({ t: fc.constant("grant" as const), n: fc.integer({ min: 1, max: 50 }) }),
      fc.record({ t: fc.constant("hold" as const), n: fc.integer({ min: 1, max: 40 }) }),
      fc.record({ t: fc.constant("capture" as const), i: fc.nat(), part: fc.double({ min: 0, max: 1, noNaN: true }) }),
      fc.record({ t: fc.constant("release" as const), i: fc.nat() }),
      fc.record({ t: fc.constant("refund" as const), n: fc.integer({ min: 1, max: 60 }) }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(op, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 8 }),
        async (batches) => {
          const u = await newUser();
          const holds: string[] = [];
          // The model only needs totals: each batch runs concurrently, so its effects are checked as invariants,
          // and a batch of one runs alone, so its effect is checked exactly.
          for (const batch of batches) {
            const before = await getBalance({ db: db(), userId: u });
            const results = await Promise.allSettled(
              batch.map(async (o) => {
                switch (o.t) {
                  case "grant":
                    return grantCredits({ db: db(), userId: u, amount: o.n, kind: "purchase", idempotencyKey: key() });
                  case "hold": {
                    const h = await holdCredits({ db: db(), userId: u, amount: o.n, idempotencyKey: key() });
                    holds.push(h.holdId);
                    return h;
                  }
                  case "capture": {
                    const holdId = holds[o.i % Math.max(1, holds.length)];
                    if (!holdId) return null;
                    const [h] = await db().select().from(creditHold).where(eq(creditHold.id, holdId));
                    return settleHold({ db: db(), holdId, as: "capture", charge: Math.floor(h!.amount * o.part) });
                  }
                  case "release": {
                    const holdId = holds[o.i % Math.max(1, holds.length)];
                    return holdId ? settleHold({ db: db(), holdId, as: "release" }) : null;
                  }
                  case "refund":
                    return takeBackCredits({ db: db(), userId: u, amount: o.n, kind: "refund", idempotencyKey: key() });
                }
              }),
            );
            for (const r of results) {
              if (r.status === "rejected") expect(["insufficient_credits", "conflict"]).toContain(codeOf(r.reason));
            }
            const after = await expectConsistent(u);
            if (batch.length === 1) {
              const [o] = batch;
              const r = results[0]!;
              if (o!.t === "grant") expect(after.balance).toBe(before.balance + o!.n);
              if (o!.t === "hold") {
                const fits = before.available >= o!.n;
                expect(r.status).toBe(fits ? "fulfilled" : "rejected");
                expect(after.held).toBe(before.held + (fits ? o!.n : 0));
              }
              if (o!.t === "refund") expect(after.balance).toBe(before.balance - Math.min(o!.n, before.available));
            }
          }
        },
      ),
      { numRuns: 25 },
    );
  });

  describe("redemption codes", () => {
    const redeem = (userId: string, code: string) =>
      redeemCode({ db: db(), userId, code }).then(
        (r) => r.credits,
        (e: unknown) => codeOf(e),
      );

    it("grants a code once per account, forgiving case, spaces and look-alike letters", async () => {
      const { codes } = await createCodes({ db: db(), credits: 25, maxUses: 3, count: 2 });
      expect(codes).toHaveLength(2);
      expect(codes[0]).toMatch(/^ATL-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/);
      const u = await newUser();
      const typed = ` ${codes[0]!.toLowerCase().replace(/-/g, " ").replace(/0/g, "o").replace(/1/g, "l")} `;
      expect(normalizeCode(typed)).toBe(normalizeCode(codes[0]!));
      expect(await redeem(u, typed)).toBe(25);
      expect(await redeem(u, codes[0]!)).toBe("code_already_redeemed");
      expect(await redeem(u, codes[1]!)).toBe(25);
      expect(await expectConsistent(u)).toEqual({ balance: 50, held: 0, available: 50 });
      // Only hashes are stored.
      const stored = await db().select().from(redemptionCode);
      expect(JSON.stringify(stored)).not.toContain(codes[0]!.slice(4));
    });

    it("answers wrong, expired and used-up codes clearly, changing nothing", async () => {
      const u = await newUser();
      expect(await redeem(u, "not a code")).toBe("code_invalid");
      expect(await redeem(u, "ATL-0000-0000-0000")).toBe("code_invalid");
      const { codes: expiring } = await createCodes({
        db: db(),
        credits: 5,
        maxUses: 1,
        count: 1,
        expiresAt: new Date(Date.now() + 60_000),
        batch: `expiring-${key()}`,
      });
      await db().execute(
        sql`update redemption_code set expires_at = now() - interval '1 second' where uses = 0 and max_uses = 1 and credits = 5`,
      );
      expect(await redeem(u, expiring[0]!)).toBe("code_expired");
      const { codes: single } = await createCodes({ db: db(), credits: 9, maxUses: 1, count: 1 });
      expect(await redeem(await newUser(), single[0]!)).toBe(9);
      expect(await redeem(u, single[0]!)).toBe("code_used_up");
      expect(await getBalance({ db: db(), userId: u })).toEqual({ balance: 0, held: 0, available: 0 });
      for (const bad of [
        { credits: 0, maxUses: 1, count: 1 },
        { credits: 5, maxUses: 0, count: 1 },
        { credits: 5, maxUses: 1, count: 1001 },
        { credits: 5, maxUses: 1, count: 1, expiresAt: new Date(Date.now() - 1000) },
      ]) {
        expect(codeOf(await createCodes({ db: db(), ...bad }).catch((e: unknown) => e))).toBe("bad_request");
      }
    });

    it("lets one of many concurrent redemptions of a single-use code through", async () => {
      const { codes } = await createCodes({ db: db(), credits: 40, maxUses: 1, count: 1 });
      const users = await Promise.all(Array.from({ length: 12 }, () => newUser()));
      const outcomes = await Promise.all(users.map((u) => redeem(u, codes[0]!)));
      expect(outcomes.filter((o) => o === 40)).toHaveLength(1);
      expect(outcomes.filter((o) => o === "code_used_up")).toHaveLength(11);
      const balances = await Promise.all(users.map((u) => expectConsistent(u)));
      expect(balances.reduce((sum, b) => sum + b.balance, 0)).toBe(40);
    });

    it("limits redemption attempts per account", async () => {
      const u = await newUser();
      const outcomes = [];
      for (let i = 0; i < 11; i++) outcomes.push(await redeem(u, "ATL-ZZZZ-ZZZZ-ZZZZ"));
      expect(outcomes.slice(0, 10)).toEqual(Array(10).fill("code_invalid"));
      expect(outcomes[10]).toBe("rate_limited");
    });
  });
});
