import { randomUUID } from "node:crypto";
import pino from "pino";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DbHandle } from "#server/db/client.ts";
import { session, user } from "#server/db/schema/index.ts";
import type { PgBoss } from "#server/jobs/boss.ts";
import { parseEnv } from "#server/env.ts";
import { defaultSettings } from "#server/modules/settings/settings-store.ts";
import { resolveSiteConfig } from "#config/site.ts";
import { createLocalStorage } from "#server/storage/local.ts";
import { createAuth, type Auth } from "#server/modules/auth/auth.ts";
import type { AuthAttempt } from "#server/modules/auth/attempts.ts";
import { signUp } from "#server/modules/auth/sign-up.ts";
import { signIn } from "#server/modules/auth/sign-in.ts";
import { resendVerification } from "#server/modules/auth/resend-verification.ts";
import { requestPasswordReset } from "#server/modules/auth/request-password-reset.ts";
import { resetPassword } from "#server/modules/auth/reset-password.ts";
import { changePassword } from "#server/modules/auth/change-password.ts";
import { deleteOwnAccount } from "#server/modules/auth/delete-own-account.ts";
import { verifyEmail } from "#server/modules/auth/verify-email.ts";
import { startOAuth } from "#server/modules/auth/start-oauth.ts";
import { RATE_LIMITS } from "#server/modules/auth/policy.ts";
import { MAIL_QUEUE } from "#server/modules/mail/queue-mail.ts";
import type { Viewer } from "#common/viewer.ts";
import { backends, openEngine } from "#tests/support/backends.ts";

const logger = pino({ level: "silent" });

// The sign-in forms' use cases against a real database and the real authentication library, without HTTP: what
// each returns, what it writes, what it sends, and how it limits attempts.
describe.each(backends)("the sign-in forms' use cases on $name", (backend) => {
  let engine: Awaited<ReturnType<typeof openEngine>>;
  let handle: DbHandle;
  let boss: PgBoss;
  let auth: Auth;
  const env = parseEnv({ AUTH_SECRET: "a-test-secret-that-is-long-enough-to-pass-the-check" });
  const site = resolveSiteConfig(env);
  const settings = { current: () => defaultSettings(site) };

  beforeAll(async () => {
    engine = await openEngine(backend);
    ({ handle, boss } = engine);
    auth = createAuth({ db: handle.db, env, site, logger, boss, secret: env.AUTH_SECRET!, settings });
  });
  afterAll(() => engine?.close());

  /** Each attempt from its own address unless given one, so that only the limit under test applies. */
  const attempt = (extra: { clientIp?: string; cookie?: string } = {}): AuthAttempt => {
    const clientIp = extra.clientIp ?? `198.51.100.${Math.floor(Math.random() * 250)}`;
    const headers = new Headers({ "x-atelier-client-ip": clientIp, "user-agent": "vitest" });
    if (extra.cookie) headers.set("cookie", extra.cookie);
    return { auth, db: handle.db, logger, headers, clientIp };
  };
  /** What signing in needs beyond the attempt: the queue for the owner's warning and the site's address. */
  const mailing = () => ({ boss, siteUrl: site.url });
  type Mail = { to: string; kind: string; url: string };
  /** The messages queued for an address, oldest first (no worker runs here, so they stay in the queue). */
  const mails = async (to: string): Promise<Mail[]> => {
    const result = (await handle.db.execute(
      sql`select data from pgboss.job where name = ${MAIL_QUEUE} and data->>'to' = ${to} order by created_on`,
    )) as unknown as { rows: Array<{ data: Mail }> };
    return result.rows.map((r) => r.data);
  };
  const cookieOf = (headers: Headers) =>
    headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
  const password = "Correct-Horse-42";

  async function confirmedAccount(name = "Maker") {
    const email = `${randomUUID()}@example.com`;
    const created = await signUp({ ...attempt(), name, email, password, locale: "ja", returnTo: "/dashboard" });
    expect(created).toEqual({ ok: true });
    await handle.db.update(user).set({ emailVerified: true }).where(eq(user.email, email));
    return email;
  }

  it("signs up without telling whether the address was taken, and signs in only once it is confirmed", async () => {
    const email = `${randomUUID()}@example.com`;
    const first = { ...attempt(), name: "Ada", email, password, locale: "de", returnTo: "/dashboard/image" };
    expect(await signUp(first)).toEqual({ ok: true });
    expect(await signUp({ ...first, ...attempt(), name: "Someone else" })).toEqual({ ok: true });
    expect((await mails(email)).map((m) => m.kind)).toEqual(["verifyEmail", "existingAccount"]);
    expect(await handle.db.select({ name: user.name }).from(user).where(eq(user.email, email))).toEqual([
      { name: "Ada" },
    ]);

    expect(await signIn({ ...mailing(), ...attempt(), email, password })).toEqual({
      ok: false,
      reason: "email_not_verified",
    });
    expect(await resendVerification({ ...attempt(), email })).toEqual({ ok: true });
    expect((await mails(email)).map((m) => m.kind)).toEqual(["verifyEmail", "existingAccount", "verifyEmail"]);

    await handle.db.update(user).set({ emailVerified: true }).where(eq(user.email, email));
    expect(await signIn({ ...mailing(), ...attempt(), email, password: "Wrong-Horse-42" })).toEqual({
      ok: false,
      reason: "invalid_credentials",
    });
    const signedIn = await signIn({ ...mailing(), ...attempt(), email, password });
    expect(signedIn).toMatchObject({ ok: true, preferredLocale: "de" });
    if (!signedIn.ok) return;
    expect(cookieOf(signedIn.cookies)).toMatch(/session_token=/);
  });

  it("bounds guesses at an account from everywhere, never refusing a browser that signed in before, and tells the owner", async () => {
    const email = await confirmedAccount();
    const budget = RATE_LIMITS.signInUnknownDevicesPerAccount.max;
    const signInFrom = (clientIp: string, secret: string, cookie?: string) =>
      signIn({ ...attempt({ clientIp, cookie }), ...mailing(), email, password: secret, floorMs: 0 });
    const deviceOf = (result: Awaited<ReturnType<typeof signIn>>) => {
      if (!result.ok) throw new Error(`not signed in: ${result.reason}`);
      const device = cookieOf(result.cookies)
        .split("; ")
        .find((c) => c.startsWith("atelier.device="));
      if (!device) throw new Error("no device cookie");
      return device;
    };
    // The owner has signed in from two browsers, which keep their device cookies.
    const laptop = deviceOf(await signInFrom("192.0.2.10", password));
    const phone = deviceOf(await signInFrom("192.0.2.11", password));
    expect(laptop).not.toBe(phone);

    // Guesses from browsers the account does not know, all at once from as many addresses: only the budget's worth
    // are checked; the rest are refused unchecked.
    const guesses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => signInFrom(`198.51.100.${i + 1}`, `Wrong-Horse-${i}`)),
    );
    expect(guesses.filter((g) => !g.ok && g.reason === "invalid_credentials")).toHaveLength(budget);
    expect(guesses.filter((g) => !g.ok && g.reason === "locked")).toHaveLength(20 - budget);
    // The right password from an unknown browser is refused too, and so is a forged or another account's cookie…
    expect(await signInFrom("192.0.2.77", password)).toMatchObject({ ok: false, reason: "locked" });
    const forged = laptop.replace(/.{4}$/, "AAAA");
    expect(await signInFrom("192.0.2.10", password, forged)).toMatchObject({ reason: "locked" });
    const stranger = await confirmedAccount();
    const othersDevice = deviceOf(await signIn({ ...attempt(), ...mailing(), email: stranger, password, floorMs: 0 }));
    expect(await signInFrom("192.0.2.10", password, othersDevice)).toMatchObject({ reason: "locked" });
    // …but the owner's browser gets in at once, and that gives the guessers nothing back.
    const renewed = deviceOf(await signInFrom("192.0.2.10", password, laptop));
    expect(await signInFrom("198.51.100.99", "Wrong-Horse-x")).toMatchObject({ reason: "locked" });

    // A known browser that fails too often is paused by itself: the owner's other browser still gets in.
    const perDevice = RATE_LIMITS.signInPerKnownDevice.max;
    const tries = await Promise.all(
      Array.from({ length: perDevice + 5 }, (_, i) => signInFrom("192.0.2.10", `Wrong-Horse-d${i}`, renewed)),
    );
    expect(tries.filter((t) => !t.ok && t.reason === "invalid_credentials")).toHaveLength(perDevice);
    expect(await signInFrom("192.0.2.10", password, renewed)).toMatchObject({ reason: "locked" });
    expect(await signInFrom("192.0.2.11", password, phone)).toMatchObject({ ok: true });

    // The owner was told once, in their language, with a link to choose a new password.
    const warnings = (await mails(email)).filter((m) => m.kind === "signInAttempts");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.url).toBe(`${site.url}/ja/auth/update-password`);

    // One address is also limited across all the accounts it tries.
    const crowd = "203.0.113.7";
    const other = await confirmedAccount();
    // Unknown accounts, answered without the floor's wait: only the address's count matters here.
    for (let i = 0; i < RATE_LIMITS.signInPerIp.max; i++) {
      await signIn({
        ...attempt({ clientIp: crowd }),
        ...mailing(),
        email: `${randomUUID()}@example.com`,
        password,
        floorMs: 0,
      });
    }
    expect(await signIn({ ...attempt({ clientIp: crowd }), ...mailing(), email: other, password })).toMatchObject({
      reason: "rate_limited",
    });
    expect(await signIn({ ...attempt(), ...mailing(), email: other, password })).toMatchObject({ ok: true });
  });

  it("sends a reset link only to an existing account, answers alike for both, and limits requests per address", async () => {
    const email = await confirmedAccount();
    const unknown = `${randomUUID()}@example.com`;
    expect(await requestPasswordReset({ ...attempt(), email: unknown })).toEqual({ ok: true });
    expect(await mails(unknown)).toEqual([]);
    for (let i = 0; i < RATE_LIMITS.resetPerEmail.max; i++) {
      expect(await requestPasswordReset({ ...attempt(), email })).toEqual({ ok: true });
    }
    expect((await mails(email)).filter((m) => m.kind === "resetPassword")).toHaveLength(RATE_LIMITS.resetPerEmail.max);
    expect(await requestPasswordReset({ ...attempt(), email })).toMatchObject({ ok: false, reason: "rate_limited" });
  });

  it("sets a new password with a reset link's token once, ending every session", async () => {
    const email = await confirmedAccount();
    expect(await signIn({ ...mailing(), ...attempt(), email, password })).toMatchObject({ ok: true });
    expect(await requestPasswordReset({ ...attempt(), email })).toEqual({ ok: true });
    const link = (await mails(email)).find((m) => m.kind === "resetPassword")!;
    const token = new URL(link.url).searchParams.get("token")!;
    const fresh = "Fresh-Battery-Staple-9";
    expect(await resetPassword({ ...attempt(), token: "not-a-token", password: fresh })).toEqual({
      ok: false,
      reason: "link_invalid",
    });
    const reset = await resetPassword({ ...attempt(), token, password: fresh });
    expect(reset).toMatchObject({ ok: true });
    // The browser that chose the new password is now known to the account.
    if (reset.ok) expect(cookieOf(reset.cookies)).toMatch(/^atelier\.device=[\w.~-]+$/);
    expect(await resetPassword({ ...attempt(), token, password: "Another-Staple-10" })).toEqual({
      ok: false,
      reason: "link_invalid",
    });
    const [owner] = await handle.db.select({ id: user.id }).from(user).where(eq(user.email, email));
    expect(await handle.db.select().from(session).where(eq(session.userId, owner!.id))).toEqual([]);
    expect((await mails(email)).map((m) => m.kind)).toContain("passwordChanged");
    expect(await signIn({ ...mailing(), ...attempt(), email, password })).toMatchObject({
      reason: "invalid_credentials",
    });
    expect(await signIn({ ...mailing(), ...attempt(), email, password: fresh })).toMatchObject({ ok: true });
  });

  async function signedInViewer() {
    const email = await confirmedAccount("Grace");
    const signedIn = await signIn({ ...mailing(), ...attempt(), email, password });
    if (!signedIn.ok) throw new Error(`not signed in: ${signedIn.reason}`);
    const [row] = await handle.db.select().from(user).where(eq(user.email, email));
    const viewer: Viewer = { id: row!.id, name: row!.name, email, image: null, role: "user", locale: row!.locale };
    return { viewer, cookie: cookieOf(signedIn.cookies) };
  }

  it("changes the password only with the current one, ends the other sessions and tells the owner", async () => {
    const { viewer, cookie } = await signedInViewer();
    const other = await signIn({ ...mailing(), ...attempt(), email: viewer.email, password });
    expect(other.ok).toBe(true);
    const change = (current: string) =>
      changePassword({
        ...attempt({ cookie }),
        boss,
        viewer,
        current,
        password: "New-Battery-Staple-7",
        settingsUrl: `${site.url}/ja/auth/update-password`,
      });
    expect(await change("Wrong-Horse-42")).toEqual({ ok: false, reason: "wrong_password" });
    const changed = await change(password);
    expect(changed).toMatchObject({ ok: true });
    expect(await handle.db.select({ id: session.id }).from(session).where(eq(session.userId, viewer.id))).toHaveLength(
      1,
    );
    expect((await mails(viewer.email)).filter((m) => m.kind === "passwordChanged")).toEqual([
      expect.objectContaining({ url: `${site.url}/ja/auth/update-password` }),
    ]);
    expect(await signIn({ ...mailing(), ...attempt(), email: viewer.email, password })).toMatchObject({
      reason: "invalid_credentials",
    });
    expect(
      await signIn({ ...mailing(), ...attempt(), email: viewer.email, password: "New-Battery-Staple-7" }),
    ).toMatchObject({
      ok: true,
    });
  });

  it("deletes an account only with its password, and ends its session with it", async () => {
    const { viewer, cookie } = await signedInViewer();
    const storage = createLocalStorage(engine.filesDir);
    const remove = (typed: string) =>
      deleteOwnAccount({ ...attempt({ cookie }), storage, viewer, password: typed, email: "" });
    expect(await remove("Wrong-Horse-42")).toEqual({ ok: false, reason: "wrong_password" });
    expect(await handle.db.select({ id: user.id }).from(user).where(eq(user.id, viewer.id))).toHaveLength(1);
    const deleted = await remove(password);
    expect(deleted).toMatchObject({ ok: true });
    expect(await handle.db.select({ id: user.id }).from(user).where(eq(user.id, viewer.id))).toEqual([]);
    expect(await signIn({ ...mailing(), ...attempt(), email: viewer.email, password })).toMatchObject({
      reason: "invalid_credentials",
    });
  });

  it("bounds the wrong passwords a signed-in user types, changing the password or deleting the account", async () => {
    const { viewer, cookie } = await signedInViewer();
    const storage = createLocalStorage(engine.filesDir);
    const change = (current: string) =>
      changePassword({
        ...attempt({ cookie }),
        boss,
        viewer,
        current,
        password: "New-Battery-Staple-7",
        settingsUrl: `${site.url}/auth/update-password`,
      });
    const remove = (typed: string) =>
      deleteOwnAccount({ ...attempt({ cookie }), storage, viewer, password: typed, email: "" });
    const max = RATE_LIMITS.passwordCheckPerUser.max;
    // All at once, through both forms: only the budget's worth are checked.
    const tries = await Promise.all(
      Array.from({ length: 12 }, (_, i) => (i % 2 ? change(`Wrong-Horse-${i}`) : remove(`Wrong-Horse-${i}`))),
    );
    expect(tries.filter((t) => !t.ok && t.reason === "wrong_password")).toHaveLength(max);
    expect(tries.filter((t) => !t.ok && t.reason === "rate_limited")).toHaveLength(12 - max);
    expect(await remove(password)).toMatchObject({ ok: false, reason: "rate_limited" });
    expect(await handle.db.select({ id: user.id }).from(user).where(eq(user.id, viewer.id))).toHaveLength(1);
  });

  it("confirms an address from its link, starting a session in the account's language, and refuses a forged link", async () => {
    const email = `${randomUUID()}@example.com`;
    expect(await signUp({ ...attempt(), name: "Kai", email, password, locale: "ko", returnTo: "/dashboard" })).toEqual({
      ok: true,
    });
    const [mail] = await mails(email);
    const token = new URL(mail!.url).searchParams.get("verify");
    expect(token).toBeTruthy();
    const verified = await verifyEmail({ auth, headers: attempt().headers, logger, token: token! });
    expect(verified).toMatchObject({ ok: true, locale: "ko" });
    if (!verified.ok) return;
    expect(cookieOf(verified.cookies)).toContain("session_token=");
    expect(await handle.db.select({ verified: user.emailVerified }).from(user).where(eq(user.email, email))).toEqual([
      { verified: true },
    ]);
    expect(await verifyEmail({ auth, headers: attempt().headers, logger, token: `${token}x` })).toEqual({
      ok: false,
      reason: "link_invalid",
    });
  });

  it("starts an OAuth sign-in only with a provider this server offers, keeping its state in a cookie", async () => {
    const callbacks = { callbackURL: "/auth/callback?next=%2Fdashboard", errorCallbackURL: "/auth/login?error=oauth" };
    expect(await startOAuth({ auth, env, headers: attempt().headers, provider: "github", ...callbacks })).toEqual({
      ok: false,
      reason: "unknown_provider",
    });

    const withGitHub = parseEnv({
      AUTH_SECRET: env.AUTH_SECRET,
      GITHUB_CLIENT_ID: "an-id",
      GITHUB_CLIENT_SECRET: "a-secret",
    });
    const githubAuth = createAuth({
      db: handle.db,
      env: withGitHub,
      site,
      logger,
      boss,
      secret: env.AUTH_SECRET!,
      settings,
    });
    const headers = attempt().headers;
    const started = await startOAuth({ auth: githubAuth, env: withGitHub, headers, provider: "github", ...callbacks });
    expect(started).toMatchObject({ ok: true });
    if (!started.ok) return;
    const url = new URL(started.url);
    expect(url.origin + url.pathname).toBe("https://github.com/login/oauth/authorize");
    expect(url.searchParams.get("client_id")).toBe("an-id");
    expect(url.searchParams.get("state")).toBeTruthy();
    expect(cookieOf(started.cookies)).toMatch(/state/);
    expect(await startOAuth({ auth: githubAuth, env: withGitHub, headers, provider: "nope", ...callbacks })).toEqual({
      ok: false,
      reason: "unknown_provider",
    });
  });
});
