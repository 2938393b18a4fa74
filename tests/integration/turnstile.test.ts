import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeTurnstile, TURNSTILE_TEST, type FakeTurnstile } from "#tests/fakes/turnstile.ts";
import { startServer, type TestServer } from "#tests/support/server.ts";

describe("the bot check on the account forms", () => {
  let server: TestServer;
  let fake: FakeTurnstile;

  beforeAll(async () => {
    fake = await startFakeTurnstile();
    server = await startServer({
      TURNSTILE_SITE_KEY: TURNSTILE_TEST.siteKeyPass,
      TURNSTILE_SECRET_KEY: TURNSTILE_TEST.secretPass,
      TURNSTILE_VERIFY_URL: fake.verifyUrl,
    });
  });
  afterAll(async () => {
    await server?.close();
    await fake?.close();
  });

  const post = (path: string, fields: Record<string, string>) =>
    fetch(`${server.url}${path}`, {
      method: "POST",
      redirect: "manual",
      headers: { Origin: server.url, "Sec-Fetch-Site": "same-origin" },
      body: new URLSearchParams(fields),
    });
  // The page embeds every auth text for the browser, so the answer is recognised by its action data.
  const refused = async (res: Response) => {
    const html = await res.text();
    return res.status === 400 && html.includes('\\"formError\\",\\"error.botCheck\\"');
  };
  const forms = {
    "/auth/login": { email: "someone@example.com", password: "harbor-Violet-42!" },
    "/auth/register": { name: "Someone", email: "someone@example.com", password: "harbor-Violet-42!", terms: "on" },
    "/auth/update-password": { email: "someone@example.com" },
  };

  it("shows the widget and allows its script in the page policy", async () => {
    const res = await fetch(`${server.url}/auth/login`);
    expect(res.headers.get("content-security-policy")).toContain("https://challenges.cloudflare.com");
    expect(await res.text()).toContain(TURNSTILE_TEST.siteKeyPass);
  });

  it.each(Object.entries(forms))("%s refuses a submission without a token", async (path, fields) => {
    const before = fake.requests.length;
    expect(await refused(await post(path, fields))).toBe(true);
    expect(fake.requests.length).toBe(before);
  });

  it.each(Object.entries(forms))("%s goes on once the service accepts the token", async (path, fields) => {
    const res = await post(path, { ...fields, "cf-turnstile-response": TURNSTILE_TEST.dummyToken });
    expect(await refused(res)).toBe(false);
    expect(fake.requests.at(-1)).toMatchObject({ response: TURNSTILE_TEST.dummyToken, remoteip: "127.0.0.1" });
  });

  it("refuses when the service cannot confirm the token", async () => {
    fake.outage = 503;
    try {
      const res = await post("/auth/login", { ...forms["/auth/login"], "cf-turnstile-response": "token" });
      expect(await refused(res)).toBe(true);
    } finally {
      fake.outage = null;
    }
  });
});
