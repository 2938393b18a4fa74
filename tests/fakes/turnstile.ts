import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** Cloudflare's documented test secrets and what siteverify answers for them. */
export const TURNSTILE_TEST = {
  siteKeyPass: "1x00000000000000000000AA",
  secretPass: "1x0000000000000000000000000000000AA",
  secretFail: "2x0000000000000000000000000000000AA",
  secretDuplicate: "3x0000000000000000000000000000000AA",
  dummyToken: "XXXX.DUMMY.TOKEN.XXXX",
} as const;

export interface FakeTurnstile {
  /** The siteverify URL to configure as TURNSTILE_VERIFY_URL. */
  verifyUrl: string;
  /** Verification requests seen, as parsed fields. */
  requests: Array<Record<string, string>>;
  /** When set, every request gets this HTTP status with Cloudflare's `internal-error` body. */
  outage: number | null;
  close(): Promise<void>;
}

/**
 * Cloudflare Turnstile's server-side siteverify endpoint, answering the way it does for the test secret keys:
 * the "passes" secret accepts any token, the "fails" secret rejects it as invalid, the third reports it as already
 * redeemed. Form-encoded and JSON bodies are both accepted, as upstream.
 */
export async function startFakeTurnstile(): Promise<FakeTurnstile> {
  const fake = { requests: [], outage: null } as unknown as FakeTurnstile;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const reply = (status: number, body: Record<string, unknown>) => {
        res.writeHead(status, { "Content-Type": "application/json" });
        res.end(JSON.stringify(body));
      };
      const url = new URL(req.url ?? "/", "http://localhost");
      if (req.method !== "POST" || url.pathname !== "/turnstile/v0/siteverify")
        return reply(404, { success: false, "error-codes": ["bad-request"] });
      const raw = Buffer.concat(chunks).toString("utf8");
      let fields: Record<string, string>;
      try {
        fields = (req.headers["content-type"] ?? "").includes("application/json")
          ? (JSON.parse(raw) as Record<string, string>)
          : Object.fromEntries(new URLSearchParams(raw));
      } catch {
        return reply(400, { success: false, "error-codes": ["bad-request"] });
      }
      fake.requests.push(fields);
      if (fake.outage) return reply(fake.outage, { success: false, "error-codes": ["internal-error"] });
      const fail = (code: string) => reply(200, { success: false, "error-codes": [code], messages: [] });
      if (!fields.secret) return fail("missing-input-secret");
      if (!fields.response) return fail("missing-input-response");
      if (fields.response.length > 2048) return fail("invalid-input-response");
      switch (fields.secret) {
        case TURNSTILE_TEST.secretPass:
          return reply(200, {
            success: true,
            challenge_ts: new Date().toISOString(),
            hostname: "example.com",
            "error-codes": [],
            action: "",
            cdata: "",
            metadata: { interactive: false },
          });
        case TURNSTILE_TEST.secretFail:
          return fail("invalid-input-response");
        case TURNSTILE_TEST.secretDuplicate:
          return fail("timeout-or-duplicate");
        default:
          return fail("invalid-input-secret");
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  fake.verifyUrl = `http://127.0.0.1:${port}/turnstile/v0/siteverify`;
  fake.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return fake;
}
