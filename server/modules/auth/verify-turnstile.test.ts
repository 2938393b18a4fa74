import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeTurnstile, TURNSTILE_TEST, type FakeTurnstile } from "#tests/fakes/turnstile.ts";
import { verifyTurnstile } from "./verify-turnstile.ts";

describe("verifyTurnstile against a siteverify endpoint over HTTP", () => {
  let fake: FakeTurnstile;
  const logger = pino({ level: "silent" });
  beforeAll(async () => {
    fake = await startFakeTurnstile();
  });
  afterAll(() => fake.close());

  const check = (secret: string | undefined, token: string | null) =>
    verifyTurnstile({ secret, verifyUrl: fake.verifyUrl, token, ip: "203.0.113.9", logger });

  it("skips the check when no secret is configured", async () => {
    const before = fake.requests.length;
    expect(await check(undefined, null)).toBe(true);
    expect(fake.requests.length).toBe(before);
  });

  it("passes a token the service accepts and sends the secret, token and client IP", async () => {
    expect(await check(TURNSTILE_TEST.secretPass, TURNSTILE_TEST.dummyToken)).toBe(true);
    expect(fake.requests.at(-1)).toEqual({
      secret: TURNSTILE_TEST.secretPass,
      response: TURNSTILE_TEST.dummyToken,
      remoteip: "203.0.113.9",
    });
  });

  it("fails closed on a rejected, redeemed, missing or oversized token", async () => {
    expect(await check(TURNSTILE_TEST.secretFail, TURNSTILE_TEST.dummyToken)).toBe(false);
    expect(await check(TURNSTILE_TEST.secretDuplicate, TURNSTILE_TEST.dummyToken)).toBe(false);
    const before = fake.requests.length;
    expect(await check(TURNSTILE_TEST.secretPass, null)).toBe(false);
    expect(await check(TURNSTILE_TEST.secretPass, "x".repeat(2049))).toBe(false);
    expect(fake.requests.length).toBe(before);
  });

  it("fails closed when the service is down or unreachable", async () => {
    fake.outage = 500;
    expect(await check(TURNSTILE_TEST.secretPass, TURNSTILE_TEST.dummyToken)).toBe(false);
    fake.outage = null;
    const unreachable = await verifyTurnstile({
      secret: TURNSTILE_TEST.secretPass,
      verifyUrl: "http://127.0.0.1:9/turnstile/v0/siteverify",
      token: TURNSTILE_TEST.dummyToken,
      ip: "203.0.113.9",
      logger,
    });
    expect(unreachable).toBe(false);
  });
});
