import { createHash, randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";

export interface FakeOAuthUser {
  sub: string;
  email: string;
  name: string;
  email_verified: boolean;
}

export interface FakeOAuth {
  url: string;
  clientId: string;
  clientSecret: string;
  /** Who "signs in" at the provider next. */
  user: FakeOAuthUser;
  /** Token requests seen, for assertions. */
  tokenRequests: Array<Record<string, string>>;
  close(): Promise<void>;
}

/**
 * A small OAuth 2.0 provider with the real authorization-code flow: the authorize endpoint checks the client, the
 * redirect URI, state and the S256 PKCE challenge, then sends the browser back with a one-time code (the person
 * consents at once); the token endpoint checks the client secret, the code, the redirect URI and the verifier.
 */
export async function startFakeOAuth(): Promise<FakeOAuth> {
  const clientId = "atelier-test-client";
  const clientSecret = randomBytes(16).toString("hex");
  const codes = new Map<string, { redirectUri: string; challenge: string; user: FakeOAuthUser }>();
  const tokens = new Map<string, FakeOAuthUser>();
  const fake = {
    user: { sub: "fake-1", email: "oauth@example.com", name: "OAuth Person", email_verified: true },
  } as FakeOAuth;
  fake.tokenRequests = [];

  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { "Content-Type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (url.pathname === "/authorize") {
      const q = url.searchParams;
      const redirectUri = q.get("redirect_uri");
      if (q.get("client_id") !== clientId || !redirectUri || q.get("response_type") !== "code") {
        return json(400, { error: "invalid_request" });
      }
      if (!q.get("state") || q.get("code_challenge_method") !== "S256" || !q.get("code_challenge")) {
        return json(400, { error: "invalid_request", error_description: "state and S256 PKCE are required" });
      }
      const code = randomBytes(16).toString("hex");
      codes.set(code, { redirectUri, challenge: q.get("code_challenge")!, user: { ...fake.user } });
      const back = new URL(redirectUri);
      back.searchParams.set("code", code);
      back.searchParams.set("state", q.get("state")!);
      res.writeHead(302, { Location: back.toString() });
      return res.end();
    }
    if (url.pathname === "/token" && req.method === "POST") {
      let body = "";
      req.on("data", (d: Buffer) => (body += d.toString()));
      req.on("end", () => {
        const form = Object.fromEntries(new URLSearchParams(body));
        const basic = req.headers.authorization?.startsWith("Basic ")
          ? Buffer.from(req.headers.authorization.slice(6), "base64").toString().split(":").map(decodeURIComponent)
          : undefined;
        fake.tokenRequests.push(form);
        const id = form.client_id ?? basic?.[0];
        const secret = form.client_secret ?? basic?.[1];
        if (id !== clientId || secret !== clientSecret) return json(401, { error: "invalid_client" });
        const grant = codes.get(form.code ?? "");
        codes.delete(form.code ?? "");
        if (!grant || form.grant_type !== "authorization_code" || grant.redirectUri !== form.redirect_uri) {
          return json(400, { error: "invalid_grant" });
        }
        const challenge = createHash("sha256")
          .update(form.code_verifier ?? "")
          .digest("base64url");
        if (challenge !== grant.challenge) return json(400, { error: "invalid_grant", error_description: "PKCE" });
        const token = randomBytes(16).toString("hex");
        tokens.set(token, grant.user);
        json(200, { access_token: token, token_type: "Bearer", expires_in: 3600, scope: "openid email profile" });
      });
      return;
    }
    if (url.pathname === "/userinfo") {
      const token = req.headers.authorization?.replace(/^Bearer /, "") ?? "";
      const user = tokens.get(token);
      if (!user) return json(401, { error: "invalid_token" });
      return json(200, user);
    }
    json(404, { error: "not_found" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  fake.url = `http://127.0.0.1:${port}`;
  fake.clientId = clientId;
  fake.clientSecret = clientSecret;
  fake.close = () => new Promise((resolve) => server.close(() => resolve()));
  return fake;
}
