import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { AppError } from "#server/errors.ts";
import { generateWebhookSecret, signWebhook } from "./sign.ts";
import { checkWebhookUrl } from "./webhook-url.ts";

describe("signWebhook", () => {
  const body = JSON.stringify({ type: "generation.succeeded", data: { id: "g1", prompt: "é ✓ 🦊" } });

  it("signs exactly as the Standard Webhooks reference library does", () => {
    const secret = generateWebhookSecret();
    const at = new Date("2026-11-23T10:00:00Z");
    const ours = signWebhook({ id: "msg_1", timestamp: at.getTime() / 1000, body, secrets: [secret] });
    expect(ours).toBe(new Webhook(secret).sign("msg_1", at, body));
  });

  it("carries one signature per secret, and each secret verifies the message", () => {
    const [current, previous] = [generateWebhookSecret(), generateWebhookSecret()];
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = signWebhook({ id: "msg_2", timestamp, body, secrets: [current, previous] });
    expect(signature.split(" ")).toHaveLength(2);
    const headers = { "webhook-id": "msg_2", "webhook-timestamp": String(timestamp), "webhook-signature": signature };
    for (const secret of [current, previous]) expect(new Webhook(secret).verify(body, headers)).toBeTruthy();
    expect(() => new Webhook(generateWebhookSecret()).verify(body, headers)).toThrow();
  });

  it("makes a different 256-bit secret each time", () => {
    const secrets = new Set(Array.from({ length: 50 }, generateWebhookSecret));
    expect(secrets.size).toBe(50);
    for (const s of secrets) expect(Buffer.from(s.slice("whsec_".length), "base64")).toHaveLength(32);
  });
});

describe("checkWebhookUrl", () => {
  const off = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: false };
  const on = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: true };
  const refused = (url: string, env = off) => {
    try {
      checkWebhookUrl(url, env);
      return false;
    } catch (error) {
      return error instanceof AppError && error.code === "webhook_url_refused";
    }
  };

  it("takes a public https URL as it is (normalised)", () => {
    expect(checkWebhookUrl("https://Hooks.Example.com/a?b=1", off)).toBe("https://hooks.example.com/a?b=1");
    expect(checkWebhookUrl("https://8.8.8.8/hook", off)).toBe("https://8.8.8.8/hook");
  });

  it.each([
    "http://hooks.example.com/a",
    "https://127.0.0.1/a",
    "https://2130706433/a",
    "https://[::ffff:127.0.0.1]/a",
    "https://192.168.1.10/a",
    "https://100.64.0.1/a",
    "https://localhost:8443/a",
    "https://api.localhost/a",
    "https://u:p@hooks.example.com/a",
    "ftp://hooks.example.com/a",
    "hooks.example.com/a",
  ])("refuses %s", (url) => expect(refused(url)).toBe(true));

  it("accepts the operator's own network, over http too, when allowed; never another scheme", () => {
    expect(refused("http://127.0.0.1:9000/hook", on)).toBe(false);
    expect(refused("http://receiver.localhost/hook", on)).toBe(false);
    expect(refused("https://10.0.0.5/hook", on)).toBe(false);
    expect(refused("ftp://10.0.0.5/hook", on)).toBe(true);
    expect(refused("file:///etc/passwd", on)).toBe(true);
  });
});
