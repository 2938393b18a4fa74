import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { freePort, runRole, startServer, type TestServer, serverDataDir } from "#tests/support/server.ts";
import { launchBrowser } from "#tests/support/browser.ts";
import { signedInContext } from "#tests/support/session.ts";
import { text } from "#tests/support/locales.ts";
import { nextMail, outbox } from "#tests/support/outbox.ts";
import { startFakeStripe, stripeEnvFor, type FakeStripe } from "#tests/fakes/stripe.ts";

/*
 * Subscribing to a plan in Chromium against the local Stripe: the plans on the pricing page with their monthly/yearly
 * switch, Checkout in subscription mode, the period's credits once the invoice is paid, a renewal, a failed renewal's
 * warning, cancelling in the customer portal; and a model reserved to the plan refused to a free account in the studio.
 */
describe("subscribing to a plan in Chromium", () => {
  let server: TestServer;
  let browser: Browser;
  let fake: FakeStripe;
  const dataDir = serverDataDir();

  beforeAll(async () => {
    const admin = async (...args: string[]) => {
      const run = runRole("admin", { DATA_DIR: dataDir }, args);
      expect(await run.exited, run.output()).toBe(0);
    };
    await admin(
      ...["plans", "add", "--id", "pro", "--name", "Pro", "--monthly", "1500:usd", "--yearly", "15000:usd"],
      ...["--credits", "1000", "--models", "demo-image"],
    );
    await admin("plans", "add", "--id", "plus", "--name", "Plus", "--monthly", "500:usd", "--credits", "300");
    await admin(
      "plans",
      "set",
      "pro",
      "names.fr=Pro",
      "description.fr=Pour créer chaque jour",
      "unlocks.priority=true",
    );
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
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await fake?.close();
  });

  const fill = (s: string, values: Record<string, string> = {}) =>
    s.replace(/\{\{(\w+)\}\}/g, (_, name: string) => values[name] ?? "");
  const t = (key: string, values?: Record<string, string>) => fill(text("fr", "billing", key), values);
  /** A message's words before the value it is given (a date computed by the server). */
  const upTo = (key: string, name: string) => text("fr", "billing", key).split(`{{${name}}}`)[0]!;
  const balance = (page: Page) => page.locator(".credit-balance-value").first();
  const card = (page: Page) => page.getByTestId("subscription-card");

  it("subscribes, receives the period's credits, renews, is warned of a failed payment and cancels in the portal", async () => {
    const { context } = await signedInContext(browser, server, "abonnee@example.com");
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("pageerror", (e) => problems.push(e.message));
    page.on("response", (r) => {
      if (r.url().startsWith(server.url) && r.status() >= 500) problems.push(`${r.status()} ${r.url()}`);
    });

    await page.goto(`${server.url}/fr/pricing`);
    const pro = page.getByTestId("plan-pro");
    await expect.poll(() => pro.textContent()).toContain("Pour créer chaque jour");
    expect(await pro.textContent()).toContain(t("pricing.plans.priority"));
    // The switch is made of links: the yearly price, then back to the monthly one.
    await page.getByTestId("interval-yearly").click();
    await page.waitForURL(/interval=yearly/);
    await expect.poll(() => pro.locator(".pricing-pack-price").textContent()).toMatch(/150,00/);
    await page.getByTestId("interval-monthly").click();
    await page.waitForURL(/interval=monthly/);
    await expect.poll(() => pro.locator(".pricing-pack-price").textContent()).toMatch(/15,00/);
    expect(await page.getByTestId("plan-free").textContent()).toContain(t("pricing.plans.current"));

    await page.getByTestId("subscribe-pro").click();
    await page.waitForURL(`${fake.url}/pay/**`);
    await page.getByTestId("pay").click();
    await page.waitForURL(/\/fr\/user\/orders(\?|$)/);
    expect(await card(page).textContent()).toContain(t("orders.subscription.subscribed"));
    // Said once: the address loses its parameter after the thank-you, so a reload does not say it again.
    await expect.poll(() => new URL(page.url()).search).toBe("");
    await page.reload();
    expect(await card(page).textContent()).not.toContain(t("orders.subscription.subscribed"));
    expect(await page.getByTestId("subscription-status").textContent()).toBe(t("orders.subscription.status.active"));
    await expect.poll(() => balance(page).textContent()).toMatch(/^1[\s\u202f\u00a0.,]?0[0-9]{2}$/);
    const start = Number((await balance(page).textContent())!.replace(/\D/g, ""));
    const invoices = page.locator("section[aria-labelledby=orders-heading] tr.ant-table-row");
    await expect.poll(() => invoices.count()).toBe(1);
    expect(await invoices.first().textContent()).toContain(t("orders.planInvoice", { plan: "Pro" }));
    expect(
      await invoices
        .first()
        .getByRole("link", { name: t("orders.invoicePdf") })
        .getAttribute("href"),
    ).toMatch(/\.pdf$/);
    // The invoice's own page: its plan, why it was made, its period and Stripe's links.
    await invoices
      .first()
      .getByRole("link", { name: t("orders.details") })
      .click();
    await page.getByTestId("order-plan").waitFor();
    expect(await page.getByTestId("order-status").getAttribute("data-status")).toBe("paid");
    expect(await page.getByTestId("order-status").textContent()).toContain(
      t("orders.detail.paidHintPlan", { formatted: "", plan: "Pro" }).trim(),
    );
    expect(await page.locator(".order-details").textContent()).toContain(`Pro · ${t("orders.detail.reasons.start")}`);
    expect(await page.getByTestId("order-period").textContent()).toMatch(/ au /);
    expect(await page.getByRole("link", { name: t("orders.invoice"), exact: true }).getAttribute("href")).toContain(
      fake.url,
    );
    await page.goBack();

    // The next month is paid: its credits arrive with its invoice.
    const subscription = [...fake.subscriptions.values()][0]!;
    fake.renew(subscription.id, { outcome: "paid" });
    await fake.settled();
    await page.goto(`${server.url}/fr/user/orders`);
    expect(Number((await balance(page).textContent())!.replace(/\D/g, ""))).toBe(start + 1000);
    // Stripe delivers that invoice's event again, twenty times at once: nothing more is granted.
    const paid = fake.events.filter((e) => e.type === "invoice.paid").at(-1)!;
    const deliveries = await fake.deliver(paid, { times: 20 });
    expect(deliveries.map((d) => d.status)).toEqual(Array.from({ length: 20 }, () => 200));
    await page.reload();
    expect(Number((await balance(page).textContent())!.replace(/\D/g, ""))).toBe(start + 1000);

    // The one after is declined: the plan stays for the grace period, and the page says what to do. The subscriber
    // is told once by e-mail, in their account's language (English here), however often Stripe delivers the event.
    fake.renew(subscription.id, { outcome: "failed" });
    await fake.settled();
    const failed = fake.events.filter((e) => e.type === "invoice.payment_failed").at(-1)!;
    expect((await fake.deliver(failed, { times: 3 })).map((d) => d.status)).toEqual([200, 200, 200]);
    const told = await nextMail(dataDir, "abonnee@example.com", (m) =>
      m.subject.startsWith(text("en", "email", "billing.paymentFailed.subject").split("{{")[0]!),
    );
    expect(told.text).toContain("your Pro plan");
    expect(told.link).toBe(`${server.url}/user/orders`);
    await page.reload();
    expect(await page.getByTestId("subscription-status").textContent()).toBe(t("orders.subscription.status.past_due"));
    expect(await card(page).locator(".ant-alert-warning").textContent()).toContain(
      upTo("orders.subscription.failed", "date"),
    );

    // The card is fixed, then the subscriber cancels in the portal: the plan stays until the period's end.
    const open = [...fake.invoices.values()].find((i) => i.status === "open")!;
    fake.payInvoice(open.id!);
    await fake.settled();
    await page.reload();
    expect(await page.getByTestId("subscription-status").textContent()).toBe(t("orders.subscription.status.active"));
    await page.getByTestId("manage-subscription").click();
    await page.waitForURL(`${fake.url}/portal/**`);
    await page.getByTestId("portal-cancel").click();
    await page.getByTestId("portal-cancels").waitFor();
    await page.getByTestId("portal-return").click();
    await page.waitForURL(/\/fr\/user\/orders$/);
    expect(await card(page).textContent()).toContain(upTo("orders.subscription.cancels", "date"));
    expect(
      outbox(dataDir)
        .filter((m) => m.subject === told.subject)
        .map((m) => m.file),
    ).toEqual([told.file]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it("upgrades at once and downgrades at the period's end from the pricing page", async () => {
    const { context } = await signedInContext(browser, server, "changeur@example.com");
    const page = await context.newPage();
    await page.goto(`${server.url}/fr/pricing`);
    await page.getByTestId("subscribe-plus").click();
    await page.waitForURL(`${fake.url}/pay/**`);
    await page.getByTestId("pay").click();
    await page.waitForURL(/\/fr\/user\/orders(\?|$)/);
    const subscription = [...fake.subscriptions.values()].at(-1)!;

    // Up to Pro: at once, the difference charged, the plan's name on the orders page.
    await page.goto(`${server.url}/fr/pricing`);
    expect(await page.getByTestId("change-pro").textContent()).toBe(t("pricing.plans.upgrade"));
    await page.getByTestId("change-pro").click();
    await page.waitForURL(/\/fr\/user\/orders(\?|$)/);
    expect(await card(page).textContent()).toContain(t("orders.subscription.changed.upgraded"));
    await fake.settled();
    await page.reload();
    expect(await card(page).locator(".orders-plan-name").textContent()).toContain("Pro");
    expect([...fake.invoices.values()].some((i) => i.billing_reason === "subscription_update")).toBe(true);

    // Back down to Plus: Pro stays until the renewal, which the page announces.
    await page.goto(`${server.url}/fr/pricing`);
    expect(await page.getByTestId("change-plus").textContent()).toBe(t("pricing.plans.downgrade"));
    await page.getByTestId("change-plus").click();
    await page.waitForURL(/\/fr\/user\/orders(\?|$)/);
    expect(await card(page).textContent()).toContain(t("orders.subscription.changed.scheduled"));
    await fake.settled();
    await page.reload();
    expect(await card(page).locator(".orders-plan-name").textContent()).toContain("Pro");
    expect(await card(page).textContent()).toContain(upTo("orders.subscription.changes", "plan"));
    await page.goto(`${server.url}/fr/pricing`);
    expect(await page.getByTestId("plan-plus").textContent()).toContain(upTo("pricing.plans.nextPlan", "date"));
    expect(await page.getByTestId("keep-pro").textContent()).toBe(t("pricing.plans.keep"));

    // The renewal bills Plus: the account is on it.
    fake.renew(subscription.id, { outcome: "paid" });
    await fake.settled();
    await page.goto(`${server.url}/fr/user/orders`);
    expect(await card(page).locator(".orders-plan-name").textContent()).toContain("Plus");
    expect(await card(page).textContent()).not.toContain(upTo("orders.subscription.changes", "plan"));
    await context.close();
  });

  it("refuses a model reserved to the plan to a free account in the studio, with a link to the plans", async () => {
    const { context } = await signedInContext(browser, server, "gratuit@example.com");
    const page = await context.newPage();
    await page.goto(`${server.url}/fr/dashboard/image/create/text-to-image`);
    await page.fill("#studio-prompt", "Un phare dans la tempête");
    await page.click(".studio-submit");
    const refusal = page.locator(".studio-form [role=alert]");
    // The message names the plan, after the model's name.
    const said = fill(text("fr", "messages", "pricing.errors.planRequired"), { model: "§", plan: "Pro" }).split(
      "§",
    )[1]!;
    await expect
      .poll(() => refusal.locator(".ant-alert-description").textContent(), { timeout: 30_000 })
      .toContain(said);
    const link = refusal.getByRole("link", { name: text("fr", "studio", "form.seePlans") });
    expect(await link.getAttribute("href")).toBe("/fr/pricing");
    // What was typed stays.
    expect(await page.inputValue("#studio-prompt")).toBe("Un phare dans la tempête");
    await context.close();
  });
});
