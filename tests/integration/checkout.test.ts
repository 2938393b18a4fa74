import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, startServer, TEST_DATABASE_URL, type TestServer } from "#tests/support/server.ts";
import { createTestDatabase } from "#tests/support/postgres.ts";
import { signedIn } from "#tests/support/session.ts";
import { text } from "#tests/support/locales.ts";
import { startFakeStripe, stripeEnvFor, type FakeStripe } from "#tests/fakes/stripe.ts";

const backend = TEST_DATABASE_URL ? "PostgreSQL" : "PGlite";

describe(`buying credits over HTTP on ${backend}`, () => {
  let server: TestServer;
  let fake: FakeStripe;
  let origin: string;
  let cookie: string;
  let db: Awaited<ReturnType<typeof createTestDatabase>> | undefined;

  beforeAll(async () => {
    fake = await startFakeStripe();
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    db = TEST_DATABASE_URL ? await createTestDatabase() : undefined;
    server = await startServer({
      PORT: String(port),
      SITE_URL: origin,
      ...stripeEnvFor(fake),
      ...(db ? { DATABASE_URL: db.url } : {}),
    });
    fake.webhookUrl = `${server.url}/webhooks/stripe`;
    cookie = await signedIn(server, origin, "buyer@example.com");
  });
  afterAll(async () => {
    await server?.close();
    await fake?.close();
    await db?.drop();
  });

  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${server.url}${path}`, { redirect: "manual", headers: { Cookie: cookie, ...headers } });
  const buy = (pack: string, key: string, as = cookie) =>
    fetch(`${server.url}/pricing`, {
      method: "POST",
      redirect: "manual",
      headers: { Origin: origin, "Sec-Fetch-Site": "same-origin", Cookie: as },
      body: new URLSearchParams({ pack, key }),
    });
  const available = async () =>
    ((await (await get("/api/me")).json()) as { credits: { available: number } }).credits.available;

  it("shows the packs with localized prices, and sends visitors to sign in first", async () => {
    const res = await fetch(`${server.url}/pricing`);
    // Without scripts the buy form is answered with a redirect to the payment page, which the policy must allow.
    expect(res.headers.get("content-security-policy")).toContain(
      `form-action 'self' https://checkout.stripe.com ${fake.url}`,
    );
    const en = await res.text();
    for (const price of ["$5.00", "$20.00", "$70.00"]) expect(en).toContain(price);
    expect(en).toContain(text("en", "billing", "pricing.popular"));
    expect(en).toContain("Atelier Demo Image");
    expect(en).toContain('href="/auth/login?redirect=%2Fpricing"');
    const de = await (await fetch(`${server.url}/de/pricing`)).text();
    expect(de).toContain("20,00");
    expect(de).toContain(text("de", "billing", "pricing.faq.title"));
    const anonymous = await fetch(`${server.url}/de/pricing`, {
      method: "POST",
      redirect: "manual",
      headers: { Origin: origin, "Sec-Fetch-Site": "same-origin" },
      body: new URLSearchParams({ pack: "starter", key: "k".repeat(20) }),
    });
    expect(anonymous.status).toBe(302);
    expect(anonymous.headers.get("location")).toBe("/de/auth/login?redirect=%2Fde%2Fpricing");
  });

  it("opens one checkout for a double-clicked buy button, and refuses unknown packs", async () => {
    const key = "double-click-key-0001";
    const [a, b] = await Promise.all([buy("creator", key), buy("creator", key)]);
    expect(a.status).toBe(302);
    expect(a.headers.get("location")).toMatch(new RegExp(`^${fake.url}/pay/cs_test_`));
    expect(b.headers.get("location")).toBe(a.headers.get("location"));
    const unknown = await buy("platinum", "unknown-pack-key-0001");
    expect(unknown.status).toBe(400);
    expect(await unknown.text()).toContain("pricing.errors.unknownPack");
    const crossSite = await fetch(`${server.url}/pricing`, {
      method: "POST",
      redirect: "manual",
      headers: { Origin: "https://evil.example", Cookie: cookie },
      body: new URLSearchParams({ pack: "starter", key: "cross-site-key-0001" }),
    });
    expect(crossSite.status).toBe(403);
  });

  it("grants once when the completed event arrives 20 times at once, and shows the order paid", async () => {
    const before = await available();
    const checkout = await buy("creator", "twenty-deliveries-0001");
    const sessionId = checkout.headers.get("location")!.split("/pay/")[1]!;
    const session = fake.sessions.get(sessionId)!;
    const orderId = session.metadata.order_id!;
    const pending = await (await get(`/user/orders/${orderId}`)).text();
    expect(pending).toContain('data-status="pending"');

    const deliveries = await fake.deliver(fake.pay(sessionId), { times: 20 });
    expect(deliveries.map((d) => d.status)).toEqual(Array(20).fill(200));
    const outcomes = deliveries.map((d) => (JSON.parse(d.body) as { outcome: string }).outcome);
    expect(outcomes.filter((o) => o === "applied")).toHaveLength(1);
    expect(await available()).toBe(before + 500);

    const page = await (await get(`/de/user/orders/${orderId}`)).text();
    expect(page).toContain('data-status="paid"');
    expect(page).toContain(text("de", "billing", "orders.detail.paid"));
    const list = await (await get("/user/orders")).text();
    expect(list).toContain("$20.00");
    expect(list).toContain(text("en", "billing", "orders.kinds.purchase"));
    expect(list).toContain(`/receipts/${sessionId}`);
  });

  it("refuses forged, stale, tampered and unsigned events, and ignores a replay", async () => {
    const before = await available();
    const checkout = await buy("starter", "signature-tests-0001");
    const sessionId = checkout.headers.get("location")!.split("/pay/")[1]!;
    fake.autoDeliver = false;
    const completed = fake.pay(sessionId);
    const refused = async (options: Parameters<FakeStripe["deliver"]>[1]) => {
      const [res] = await fake.deliver(completed, options);
      return res!.status;
    };
    expect(await refused({ secret: "whsec_someoneelse00000000000" })).toBe(400);
    expect(await refused({ timestamp: Math.floor(Date.now() / 1000) - 301 })).toBe(400);
    expect(await refused({ tamper: (body) => body.replace('"amount_total": 500', '"amount_total": 5') })).toBe(400);
    expect(await refused({ signature: "" })).toBe(400);
    expect(await refused({ signature: "t=1,v1=deadbeef" })).toBe(400);
    expect(await available()).toBe(before);

    expect(await refused({})).toBe(200);
    const [replay] = await fake.deliver(completed);
    expect(JSON.parse(replay!.body)).toMatchObject({ outcome: "duplicate" });
    expect(await available()).toBe(before + 100);

    const [refund] = await fake.deliver(fake.refund(sessionId));
    expect(refund!.status).toBe(200);
    expect(await available()).toBe(before);
    fake.autoDeliver = true;
  });

  it("hides other users' orders", async () => {
    const other = await signedIn(server, origin, "other@example.com");
    const checkout = await buy("starter", "someone-elses-0001", other);
    const orderId = fake.sessions.get(checkout.headers.get("location")!.split("/pay/")[1]!)!.metadata.order_id!;
    expect((await get(`/user/orders/${orderId}`)).status).toBe(404);
    expect((await get(`/user/orders/${orderId}`, { Cookie: other })).status).toBe(200);
    expect((await get("/user/orders/not-a-uuid")).status).toBe(404);
  });
});

describe("a site without Stripe keys", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it("still shows the packs, explains that purchasing is not configured, and has no webhook", async () => {
    const res = await fetch(`${server.url}/fr/pricing`);
    expect(res.headers.get("content-security-policy")).toContain("form-action 'self';");
    const page = await res.text();
    expect(page).toContain(text("fr", "billing", "pricing.notConfigured"));
    expect(page).toContain("20,00");
    const hook = await fetch(`${server.url}/webhooks/stripe`, { method: "POST", body: "{}" });
    expect(hook.status).toBe(404);
  });
});
