import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { codeMadeBeforeStart, freePort, startServer, type TestServer, serverDataDir } from "#tests/support/server.ts";
import { launchBrowser } from "#tests/support/browser.ts";
import { signedInContext } from "#tests/support/session.ts";
import { text } from "#tests/support/locales.ts";
import { nextMail } from "#tests/support/outbox.ts";
import { startFakeStripe, stripeEnvFor, type FakeStripe } from "#tests/fakes/stripe.ts";

const PASSWORD = "violet-Harbor-42!";
const EMAIL = "compradora@example.com";

describe("buying and redeeming credits in Chromium", () => {
  let server: TestServer;
  let browser: Browser;
  let fake: FakeStripe;
  let code: string;

  beforeAll(async () => {
    const dataDir = serverDataDir();
    code = await codeMadeBeforeStart(dataDir, 25);
    fake = await startFakeStripe();
    const port = await freePort();
    [server, browser] = await Promise.all([
      startServer({
        PORT: String(port),
        DATA_DIR: dataDir,
        SITE_URL: `http://127.0.0.1:${port}`,
        ...stripeEnvFor(fake),
      }),
      launchBrowser(),
    ]);
    fake.webhookUrl = `${server.url}/webhooks/stripe`;
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await fake?.close();
  });

  const balance = (page: Page) => page.locator(".credit-balance-value").first();
  const t = (key: string) => text("es", "billing", key);
  const fr = (key: string) => text("fr", "billing", key);

  it("buys a pack through checkout, sees the order paid and the balance up, redeems a code and reads the history", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    // Every page of the site on the way hydrates cleanly (a mismatch or a script error shows up here).
    const problems: string[] = [];
    page.on("console", (m) => {
      // A refused code answers 400 on purpose; failed requests are checked by status below.
      if (m.type() === "error" && m.location().url.startsWith(server.url) && !m.text().startsWith("Failed to load"))
        problems.push(m.text());
    });
    page.on("response", (r) => {
      if (r.url().startsWith(server.url) && (r.status() >= 500 || r.status() === 404))
        problems.push(`${r.status()} ${r.url()}`);
    });
    page.on("pageerror", (e) => problems.push(e.message));

    // Signed out, the buy buttons lead to sign-in, which comes back to the pricing page.
    await page.goto(`${server.url}/es/pricing`);
    await page
      .getByRole("link", { name: t("pricing.signInToBuy") })
      .first()
      .click();
    await page.waitForURL(/\/es\/auth\/login\?redirect=%2Fes%2Fpricing/);
    await page.goto(`${server.url}/es/auth/register`);
    await page.fill("#field-name", "Lucía");
    await page.fill("#field-email", EMAIL);
    await page.fill("#field-password", PASSWORD);
    await page.check("#field-terms");
    await page.click("button[type=submit]");
    await page.locator(".ant-result-success").waitFor();
    const mail = await nextMail(server.dataDir, EMAIL, (m) => m.link.includes("verify="));
    await page.goto(mail.link);
    await page.waitForURL("**/dashboard/home");
    await expect.poll(() => balance(page).textContent()).toBe("20");

    await page.goto(`${server.url}/es/pricing`);
    await page.getByTestId("buy-creator").click();
    await page.waitForURL(`${fake.url}/pay/**`);
    expect(await page.getByTestId("product").textContent()).toContain("500");
    await page.getByTestId("pay").click();

    // Back on the site: the order page follows the payment until it is confirmed.
    await page.waitForURL(/\/es\/user\/orders\/[0-9a-f-]{36}\?session_id=cs_test_/);
    const orderUrl = page.url().split("?")[0]!;
    const sessionId = new URL(page.url()).searchParams.get("session_id")!;
    await page.locator('[data-testid="order-status"][data-status="paid"]').waitFor();
    await expect.poll(() => page.getByText(t("orders.detail.paid")).count()).toBeGreaterThan(0);
    await expect.poll(() => balance(page).textContent()).toBe("520");

    await page.getByRole("link", { name: t("orders.detail.back") }).click();
    await page.waitForURL(/\/es\/user\/orders$/);
    const orders = page.locator("section[aria-labelledby=orders-heading] tr.ant-table-row");
    await expect.poll(() => orders.count()).toBe(1);
    const row = (await orders.first().textContent()) ?? "";
    expect(row).toContain(t("orders.status.paid"));
    expect(row).toMatch(/20,00\s?US\$|20,00\s?\$/);

    // A wrong code says so; the real one adds its credits.
    await page.fill("#redeem-code", "ATL-0000-0000-0000");
    await page.getByRole("button", { name: t("orders.redeem.submit") }).click();
    await expect
      .poll(() => page.locator(".ant-message-notice").allTextContents())
      .toContain(text("es", "messages", "credits.redeem.invalid"));
    await page.fill("#redeem-code", code.toLowerCase());
    await page.getByRole("button", { name: t("orders.redeem.submit") }).click();
    await expect.poll(() => balance(page).textContent()).toBe("545");
    // What Available and Balance mean is said under them.
    await expect(page.locator(".orders-figure-help").allTextContents()).resolves.toEqual([
      t("orders.availableHelp"),
      t("orders.balanceHelp"),
    ]);
    // A used code is not left in the box.
    await expect.poll(() => page.inputValue("#redeem-code")).toBe("");

    const history = page.locator("section[aria-labelledby=history-heading] tr.ant-table-row");
    await expect.poll(() => history.count()).toBe(3);
    const rows = await history.allTextContents();
    expect(rows[0]).toContain(t("orders.kinds.redemption"));
    expect(rows[0]).toContain("+25");
    expect(rows[0]).toContain("545");
    expect(rows[1]).toContain(t("orders.kinds.purchase"));
    expect(rows[1]).toContain("+500");
    expect(rows[2]).toContain(t("orders.kinds.signup_bonus"));

    // The bank disputes the payment: its credits go; the dispute is closed in the seller's favour: they come back.
    const deliver = async (step: Parameters<FakeStripe["dispute"]>[1]) => {
      const [delivery] = await fake.deliver(fake.dispute(sessionId, step));
      expect(delivery?.status).toBe(200);
    };
    await deliver({ type: "created" });
    await page.goto(orderUrl);
    await page.locator('[data-testid="order-status"][data-status="refunded"]').waitFor();
    expect(await page.getByTestId("order-dispute").textContent()).toBe(t("orders.detail.disputes.open"));
    await expect.poll(() => balance(page).textContent()).toBe("45");
    await deliver({ type: "closed", status: "won" });
    await page.reload();
    await page.locator('[data-testid="order-status"][data-status="paid"]').waitFor();
    expect(await page.getByTestId("order-dispute").textContent()).toBe(t("orders.detail.disputes.won"));
    await expect.poll(() => balance(page).textContent()).toBe("545");
    await page.goto(`${server.url}/es/user/orders`);
    await expect.poll(() => history.count()).toBe(5);
    const latest = await history.allTextContents();
    expect(latest[0]).toContain(t("orders.kinds.chargeback_reversal"));
    expect(latest[0]).toContain("+500");
    expect(latest[1]).toContain(t("orders.kinds.chargeback"));
    expect(latest[1]).toContain("−500");
    expect(problems).toEqual([]);
    await context.close();
  });

  it("saves a card for automatic top-up at Stripe, then buys a pack once a job takes the balance below the threshold", async () => {
    const email = "recharge@example.com";
    const { context } = await signedInContext(browser, server, email);
    const page = await context.newPage();
    await page.goto(`${server.url}/fr/user/orders`);
    expect(await page.getByTestId("topup-status").textContent()).toBe(fr("orders.topUp.intro"));
    await page.fill("#topup-threshold", "100000");
    await page.selectOption("#topup-pack", "starter");
    await page.fill("#topup-max", "2");
    await page.getByRole("button", { name: fr("orders.topUp.setUp") }).click();
    await page.waitForURL(`${fake.url}/pay/**`);
    await page.getByTestId("pay").click();
    await page.waitForURL(/\/fr\/user\/orders(\?|$)/);
    await fake.settled();
    await expect
      .poll(async () => {
        await page.reload();
        return page.getByTestId("topup-status").textContent();
      })
      .toContain("4242");
    expect(await page.getByTestId("topup-status").textContent()).toContain("100\u202f000");
    const before = Number((await balance(page).textContent())?.replace(/\D/g, ""));

    // One image held below the threshold: the pack is bought with the saved card, once, and the receipt is mailed.
    await page.goto(`${server.url}/fr/dashboard/image/create/text-to-image`);
    await page.fill("#studio-prompt", "Un phare dans la tempête");
    await page.click(".studio-submit");
    // The account signed up in English: its receipt is in English, and links to the order.
    const subject = text("en", "email", "billing.topUpReceipt.subject").replace("{{site}}", "Atelier");
    const receipt = await nextMail(server.dataDir, email, (m) => m.subject === subject);
    expect(receipt.link).toMatch(/\/user\/orders\/[0-9a-f-]{36}$/);
    await page.goto(`${server.url}/fr/user/orders`);
    const orders = page.locator("section[aria-labelledby=orders-heading] tr.ant-table-row");
    await expect.poll(() => orders.count()).toBe(1);
    expect(await orders.first().textContent()).toContain(fr("orders.status.paid"));
    expect(Number((await balance(page).textContent())?.replace(/\D/g, ""))).toBeGreaterThanOrEqual(before + 100 - 1);
    expect(await page.locator(".orders-topup-used").textContent()).toContain("1");

    // Turned off, it says so.
    await page.getByRole("button", { name: fr("orders.topUp.turnOff") }).click();
    await expect.poll(() => page.getByTestId("topup-status").textContent()).toBe(fr("orders.topUp.intro"));
    await context.close();
  });

  it("saves billing details at Stripe from the orders page, with a refused tax id said in German, and on a phone without scripts", async () => {
    const de = (key: string) => text("de", "billing", key);
    const deError = (key: string) => text("de", "messages", key);
    const { context } = await signedInContext(browser, server, "rechnung@example.com");
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("pageerror", (e) => problems.push(e.message));
    await page.goto(`${server.url}/de/user/orders`);
    const card = page.locator(".orders-billing");
    expect(await card.locator(".ant-card-head").textContent()).toContain(de("orders.billingDetails.title"));
    // Countries are named in the page's language, tax ids by their country and an example.
    expect(await page.locator("#billing-country option[value=DE]").textContent()).toBe("Deutschland");
    expect(await page.locator("#billing-taxIdType option[value=eu_vat]").textContent()).toBe(
      "Europäische Union (DE123456789)",
    );
    await page.fill("#billing-name", "Nordlicht Studio GmbH");
    await page.fill("#billing-line1", "Torstraße 12");
    await page.fill("#billing-postalCode", "10119");
    await page.fill("#billing-city", "Berlin");
    await page.selectOption("#billing-country", "DE");
    await page.selectOption("#billing-taxIdType", "eu_vat");
    await page.fill("#billing-taxIdValue", "123456789");
    await page.getByRole("button", { name: de("orders.billingDetails.save") }).click();
    await expect.poll(() => card.textContent()).toContain(deError("pricing.errors.billingTaxIdInvalid"));
    // Nothing was lost: the form still holds what was typed.
    expect(await page.inputValue("#billing-line1")).toBe("Torstraße 12");

    await page.fill("#billing-taxIdValue", "de123456789");
    await page.getByRole("button", { name: de("orders.billingDetails.save") }).click();
    await expect.poll(() => card.textContent()).toContain(de("orders.billingDetails.saved"));
    const customer = [...fake.customers.values()].find((c) => c.email === "rechnung@example.com")!;
    expect(customer).toMatchObject({ name: "Nordlicht Studio GmbH", address: { city: "Berlin", country: "DE" } });
    await page.reload();
    expect(await page.inputValue("#billing-taxIdValue")).toBe("DE123456789");
    expect(problems).toEqual([]);
    await context.close();

    // On a phone, before any script: the form posts and the page answers.
    const phone = await signedInContext(browser, server, "rechnung@example.com", {
      viewport: { width: 390, height: 844 },
      javaScriptEnabled: false,
    });
    const still = await phone.context.newPage();
    await still.goto(`${server.url}/de/user/orders`);
    await still.fill("#billing-city", "Hamburg");
    await still.fill("#billing-postalCode", "20095");
    await still.getByRole("button", { name: de("orders.billingDetails.save") }).click();
    await still.locator(".orders-billing .ant-alert").waitFor();
    expect(await still.locator(".orders-billing").textContent()).toContain(de("orders.billingDetails.saved"));
    expect(customer.address).toMatchObject({ city: "Hamburg", postal_code: "20095" });
    await phone.context.close();
  });
});
