import { readdirSync } from "node:fs";
import { STATUS_TTL_MS, getSystemStatus } from "#server/modules/status/system-status.ts";
import { join } from "node:path";
import { Hono, type Context, type MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import { bodyLimit } from "hono/body-limit";
import { serveStatic } from "@hono/node-server/serve-static";
import type { HttpBindings } from "@hono/node-server";
import { RouterContextProvider, createRequestHandler, type ServerBuild } from "react-router";
import type { Logger } from "pino";
import { requestInfoContext } from "#app/context.ts";
import { serverContext } from "#app/server-context.server.ts";
import { publicSiteConfig, resolveSiteConfig, siteDefaults } from "#config/site.ts";
import { siteWithSettings } from "#server/modules/settings/settings-store.ts";
import type { PublicPagesSignal } from "#server/http/public-pages.ts";
import type { Settings } from "#server/modules/settings/schema.ts";
import { antdThemeOverride } from "#app/styles/antd-stylesheet.ts";
import type { Env } from "#server/env.ts";
import type { BuildInfo } from "#server/build-info.ts";
import { CLIENT_BUILD_DIR } from "#server/paths.ts";
import { recordShed, registerAdmission, registerPageCacheSize, registry } from "#server/metrics.ts";
import { bearerCheck } from "#server/http/bearer-check.ts";
import { PAGE_VARY, PageCache } from "#server/http/page-cache.ts";
import { resultSitemaps } from "#server/http/result-sitemaps.ts";
import { mergeVary } from "#server/http/encoding.ts";
import { watchContent } from "#server/modules/content/watch-content.ts";
import { nonceFor, securityHeaders } from "#server/http/security.ts";
import { compressResponses } from "#server/http/compression.ts";
import { isDatabaseUnavailable } from "#server/db/errors.ts";
import { errorResponse, noRoute, serviceUnavailable } from "#server/http/api-error.ts";
import { AppError } from "#server/errors.ts";
import { localeCookie } from "#server/http/cookies.ts";
import { rootLocale } from "#server/http/locale.ts";
import { authHeaders, authRoutes, sameOriginWrites, sessionOf } from "#server/http/auth.ts";
import { requestContext, type AppEnv } from "#server/http/request-context.ts";
import { runtimeReady, type RuntimeEnv } from "#server/http/runtime-gate.ts";
import type { Runtime } from "#server/runtime.ts";
import { drainConnections } from "#server/http/drain.ts";
import { readiness } from "#server/http/readiness.ts";
import type { ServerState } from "#server/http/state.ts";
import { internalApi } from "#server/api/internal/index.ts";
import { publicApi } from "#server/api/v1/index.ts";
import { openaiApi } from "#server/api/openai/index.ts";
import { webhookRoutes } from "#server/http/webhooks.ts";
import { siteFiles } from "#server/http/site-files.ts";
import { shareImages } from "#server/http/share-images.ts";
import { checkoutOrigins } from "#server/modules/payments/stripe-client.ts";
import { FILES_PREFIX, isStorageKey } from "#server/storage/storage.ts";
import { mediaRoutes, sendStored } from "#server/http/media.ts";
import { PageFloodGuard, tooManyPages } from "#server/http/page-flood.ts";
import { Admission, admit, BUSY_RETRY_AFTER_SECONDS } from "#server/http/admission.ts";
import { shortPage } from "#server/http/short-page.ts";
import { DEFAULT_LOCALE, LOCALE_COOKIE, isLocale, localeOfPath, localizePath } from "#common/locales.ts";
import { docValuesOf } from "#server/modules/content/get-doc.ts";

export interface AppOptions {
  env: Env;
  logger: Logger;
  state: ServerState;
  build: BuildInfo;
  getServerBuild: () => Promise<ServerBuild>;
  /** Serve build/client (production); in development Vite serves the assets. */
  serveAssets: boolean;
}

export function createApp(options: AppOptions): Hono<AppEnv> {
  const { env, logger, state, build } = options;
  const site = resolveSiteConfig(env);
  const development = env.NODE_ENV === "development";
  const app = new Hono<AppEnv>();

  app.use(requestContext({ env, logger }));
  app.use(drainConnections(state));
  app.use(finishUnreadBody(env.BODY_LIMIT_BYTES));
  app.use(compressResponses());
  const security = securityHeaders({
    trustProxy: env.TRUST_PROXY,
    development,
    thirdParty: site.thirdParty,
    formTargets: checkoutOrigins(env),
  });
  app.use(security.middleware);
  app.use(async (c, next) => {
    if (!isDecodablePath(c.req.url)) {
      return errorResponse(c, new AppError("bad_request", "malformed request URL"));
    }
    await next();
  });
  const limitBody = bodyLimit({
    maxSize: env.BODY_LIMIT_BYTES,
    // The unread body is still on its way: close the connection rather than parse it as the next request.
    onError: (c) =>
      errorResponse(c, new AppError("payload_too_large", `at most ${env.BODY_LIMIT_BYTES} bytes`), {
        Connection: "close",
      }),
  });
  // GET and HEAD carry no body to limit; asking for one would make the Node adapter build a whole Fetch request.
  app.use((c, next) => (c.req.method === "GET" || c.req.method === "HEAD" ? next() : limitBody(c, next)));

  // The one handler of errors thrown on the way (the public API adds its rate-limit headers to its own first): an
  // AppError is the answer it names, in the one JSON shape (`errorResponse`).
  app.onError((error, c) => {
    if (error instanceof AppError) return errorResponse(c, error);
    if (isDatabaseUnavailable(error)) {
      c.get("logger").warn({ err: error.message }, "database unavailable");
      return serviceUnavailable(c);
    }
    if (error instanceof URIError) {
      return errorResponse(c, new AppError("bad_request", "malformed request URL"));
    }
    if ("getResponse" in error && typeof error.getResponse === "function") return error.getResponse() as Response;
    c.get("logger").error({ err: error, path: c.req.path }, "unhandled error");
    return errorResponse(c, new AppError("internal_error"));
  });

  // The liveness probe is asked often: its answer is built whole, with no header set twice.
  const healthy = JSON.stringify({ status: "ok" });
  app.get("/healthz", (c) => {
    c.set("headersComplete", true);
    return new Response(healthy, {
      status: 200,
      headers: {
        "Content-Type": "application/json",
        "X-Request-Id": c.get("requestId"),
        ...security.headersFor(c),
      },
    });
  });

  app.get("/readyz", async (c) => {
    const { ok, status, checks } = await readiness(state.runtime, state.draining);
    // Not ready while starting or draining is the answer by design, asked every few seconds: not a failure to log.
    if (status === "starting" || status === "draining") c.set("expectedFailure", true);
    return c.json({ status, checks }, ok ? 200 : 503);
  });

  // The service worker changes with every build, so the browser installs the new one after a deploy; it then
  // tells the open pages, which offer a reload. It handles no fetches: pages always come from the network.
  const serviceWorker = serviceWorkerScript(build.id);
  app.get("/sw.js", (c) =>
    c.body(serviceWorker, 200, {
      "Content-Type": "text/javascript; charset=utf-8",
      "Cache-Control": "no-cache",
    }),
  );

  // An operator's primary colour other than the one the build's stylesheet has: the variables that change, made once
  // on first request (so start-up does not wait) and cached by browsers for good, since the address names the colour.
  const customPrimary = site.primaryColor.toLowerCase() !== siteDefaults.primaryColor.toLowerCase();
  const themeStylesheet = customPrimary ? `/theme/${build.id}-${site.primaryColor.slice(1).toLowerCase()}.css` : null;
  if (themeStylesheet) {
    let css: string | undefined;
    app.get(themeStylesheet, (c) => {
      c.set("route", "static");
      css ??= antdThemeOverride(site.primaryColor, siteDefaults.primaryColor);
      return c.body(css, 200, {
        "Content-Type": "text/css; charset=utf-8",
        "Cache-Control": "public, max-age=31536000, immutable",
      });
    });
  }

  const metricsAllowed = bearerCheck(env.METRICS_TOKEN);
  app.get("/metrics", async (c) => {
    if (!metricsAllowed(c.req.header("authorization"))) {
      return errorResponse(c, new AppError("unauthorized", "send the metrics token as Authorization: Bearer <token>"), {
        "WWW-Authenticate": 'Bearer realm="metrics"',
      });
    }
    return c.body(await registry.metrics(), 200, { "Content-Type": registry.contentType, "Cache-Control": "no-store" });
  });

  if (options.serveAssets) {
    app.use(
      "/assets/*",
      serveStatic({
        root: CLIENT_BUILD_DIR,
        precompressed: true,
        onFound: (_path, c) => {
          c.header("Cache-Control", "public, max-age=31536000, immutable");
        },
      }),
    );
    app.all("/assets/*", (c) => c.text("Not found", 404));
    // The other files of the build (favicon, robots.txt, build.json…) are known at start: a page request never
    // looks at the disk.
    const publicFiles = listPublicFiles(CLIENT_BUILD_DIR);
    const servePublic = serveStatic({
      root: CLIENT_BUILD_DIR,
      precompressed: true,
      onFound: (path, c) => {
        c.set("route", "static");
        c.header("Cache-Control", path.endsWith("build.json") ? "no-cache" : "public, max-age=3600");
      },
    });
    app.use("*", (c, next) => (publicFiles.has(c.req.path) ? servePublic(c, next) : next()));
  }

  // robots.txt, the sitemaps and llms.txt: from the content and settings alone, so they answer while starting; the
  // results' sitemaps from the database once it is there.
  const ready = runtimeReady(state);
  const values = docValuesOf(site, env);
  const results = resultSitemaps({ site, ready, perFile: env.SITEMAP_RESULTS_PER_FILE });
  const described = siteFiles({ site, values, moreSitemaps: () => results.entries(state.runtime) });
  app.route("/", described.routes);
  app.route("/", results.routes);
  // Each public page's picture for link previews, drawn from its title: also without the database.
  const pictures = shareImages({ site, values });
  app.route("/", pictures.routes);

  // Avatars: public and immutable, since every new picture gets a new name; from whichever storage is configured.
  app.on(["GET", "HEAD"], "/files/*", ready, async (c) => {
    c.set("route", "files");
    const key = c.req.path.slice(FILES_PREFIX.length);
    if (!key.startsWith("avatars/") || !isStorageKey(key)) return c.text("Not found", 404);
    return sendStored(c, c.var.runtime.storage, key, { cacheControl: "public, max-age=31536000, immutable" });
  });
  app.all("/files/*", (c) => c.text("Not found", 404));
  app.use("/media/*", async (c, next) => {
    c.set("route", "media");
    return next();
  });
  app.route("/media", mediaRoutes(state));

  // Pages rendered and API calls take turns (MAX_CONCURRENT_REQUESTS); past the process's capacity the rest are
  // refused early with 503. A generation's status poll and a chat's stream are answered whatever the load: they are
  // cheap, and what a person waiting for a result depends on.
  const admission =
    env.MAX_CONCURRENT_REQUESTS > 0
      ? new Admission({ maxConcurrent: env.MAX_CONCURRENT_REQUESTS, maxWaitMs: env.MAX_QUEUE_MS })
      : undefined;
  if (admission) registerAdmission(() => admission);
  const apiTurn = admit<AppEnv>(admission, { exempt: (c) => c.req.method === "GET" && UNGATED_API.test(c.req.path) });
  app.all("/api/auth/*", ready, apiTurn, authRoutes);
  const internal = internalApi(state);
  app.use("/api/*", async (c, next) => {
    if (c.req.path.startsWith("/api/v1/") || c.req.path.startsWith("/api/auth/")) return next();
    return sameOriginWrites(site.url)(c, next);
  });
  app.use("/api/*", apiTurn);
  app.route(
    "/api/v1",
    publicApi(state, {
      origin: new URL(site.url).origin,
      limits: { perKey: env.API_RATE_LIMIT_PER_MINUTE, perAccount: env.API_ACCOUNT_RATE_LIMIT_PER_MINUTE },
    }),
  );
  app.route("/api", internal);
  // The OpenAI-compatible API: the OpenAI SDKs' base URL is `<site>/v1`.
  app.use("/v1/*", async (c, next) => {
    c.set("route", "openai");
    return next();
  });
  app.route(
    "/v1",
    openaiApi(state, {
      origin: new URL(site.url).origin,
      waitMs: env.API_WAIT_SECONDS * 1000,
      limits: { perKey: env.API_RATE_LIMIT_PER_MINUTE, perAccount: env.API_ACCOUNT_RATE_LIMIT_PER_MINUTE },
    }),
  );
  app.route("/webhooks", webhookRoutes(state));

  // The status page's twin for monitors: the same reading (taken at most every few seconds), 503 when down.
  app.get("/test.json", ready, async (c) => {
    c.set("route", "status");
    const status = await getSystemStatus(c.var.runtime);
    return c.json(
      { build: { version: build.version, id: build.id, builtAt: new Date(build.timestamp).toISOString() }, ...status },
      status.overall === "down" ? 503 : 200,
      { "Cache-Control": `public, max-age=${STATUS_TTL_MS / 1000}` },
    );
  });

  if (env.TEST_ROUTES) {
    // For the shutdown tests: a request still in flight when the port closes, answered once it has (at most a minute).
    app.get("/__test/held", async (c) => {
      const deadline = Date.now() + 60_000;
      while (!state.closed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      return c.json({ held: true });
    });
    // For the load-shedding tests: an API call that keeps its turn for `ms` milliseconds (at most ten seconds).
    app.get("/api/__test/slow", async (c) => {
      await new Promise((r) => setTimeout(r, Math.min(10_000, Number(c.req.query("ms")) || 0)));
      return c.json({ slow: true });
    });
  }

  // Room for the APIs: each area answers JSON, and unknown API paths are a JSON 404 rather than an HTML page.
  for (const prefix of ["/api", "/webhooks"]) {
    app.all(`${prefix}/*`, ready, (c) => noRoute(c));
  }

  // Given a function, React Router derives its route tables again on every request (to follow the development
  // server's changes): a profile of the home page put that at about a tenth of its time. In production the build
  // never changes, so the handler is made once from the loaded build.
  let productionHandler: Promise<ReturnType<typeof createRequestHandler>> | undefined;
  const handleRequest: ReturnType<typeof createRequestHandler> = development
    ? createRequestHandler(() => options.getServerBuild(), "development")
    : async (request, loadContext) => {
        productionHandler ??= options.getServerBuild().then(
          (b) => createRequestHandler(b, "production"),
          (error: unknown) => {
            productionHandler = undefined;
            throw error;
          },
        );
        return (await productionHandler)(request, loadContext);
      };
  // What the pages see of the site: the configuration with the console's bonus and packs, made again when they change.
  let publicSite = { of: undefined as Settings | undefined, site: publicSiteConfig(site) };
  const publicSiteFor = (settings: Settings) => {
    if (publicSite.of !== settings)
      publicSite = { of: settings, site: publicSiteConfig(siteWithSettings(site, settings)) };
    return publicSite.site;
  };
  const watched = new WeakSet<PublicPagesSignal>();
  const pages = new PageCache(env.PAGE_CACHE_MAX_BYTES, build.id, security);
  const flood = new PageFloodGuard(env.PAGE_RATE_LIMIT_PER_MINUTE);
  registerPageCacheSize(() => pages.size);
  watchContent({
    logger,
    onChange: () => {
      pages.clear();
      described.forget();
      pictures.forget();
    },
  });
  app.use("*", sameOriginWrites(site.url));
  const aPage: MiddlewareHandler<AppEnv> = (c, next) => {
    c.set("route", "page");
    return next();
  };
  app.all("*", aPage, ready, async (c) => {
    const runtime = c.var.runtime;
    if (!watched.has(runtime.publicPages)) {
      // A page kept in memory shows the banner, prices and showcase it was rendered with: a change forgets them all.
      watched.add(runtime.publicPages);
      runtime.publicPages.onChange(() => pages.clear());
    }
    const extra = new Headers();
    const cookieLocale = getCookie(c, LOCALE_COOKIE);
    // A malformed or unsupported cookie is ignored and replaced by the locale actually served.
    const replaceCookie = cookieLocale !== undefined && !isLocale(cookieLocale);
    let servedLocale = localeOfPath(c.req.path);
    if (c.req.path === "/" && (c.req.method === "GET" || c.req.method === "HEAD")) {
      extra.set("Vary", "Accept-Language, Cookie");
      servedLocale = rootLocale({
        cookie: cookieLocale,
        acceptLanguage: c.req.header("accept-language"),
        userAgent: c.req.header("user-agent"),
        fallback: site.defaultLocale,
      });
      if (servedLocale !== DEFAULT_LOCALE) {
        if (replaceCookie) extra.append("Set-Cookie", localeCookie(servedLocale));
        extra.set("Location", `${localizePath("/", servedLocale)}${new URL(c.req.url).search}`);
        return new Response(null, { status: 302, headers: extra });
      }
    }
    if (replaceCookie) extra.append("Set-Cookie", localeCookie(servedLocale));
    // A signed-out visitor's public page may come from memory; a page answer that sets a cookie never does.
    const cacheKey = replaceCookie ? null : pages.keyFor(c.req.raw, c.req.path);
    if (cacheKey) {
      const cached = pages.serve(c, cacheKey, extra);
      if (cached) return cached;
    }
    // Only what is rendered for this request counts: a page from memory costs next to nothing.
    const retryAfter = flood.take(c.get("clientIp"));
    if (retryAfter) return tooManyPages(c, retryAfter, publicSiteFor(runtime.settings.current()));
    const turn = admission?.enter();
    if (turn !== undefined && turn !== true && !(await turn)) {
      recordShed();
      c.set("expectedFailure", true);
      const busy = { status: 503 as const, messageKey: "error.busy", retryAfter: BUSY_RETRY_AFTER_SECONDS };
      return shortPage(c, { ...busy, site: publicSiteFor(runtime.settings.current()) });
    }
    try {
      return await renderPage(c, runtime, extra, cacheKey);
    } finally {
      admission?.leave();
    }
  });

  const renderPage = async (
    c: Context<RuntimeEnv>,
    runtime: Runtime,
    extra: Headers,
    cacheKey: string | null,
  ): Promise<Response> => {
    const session = await sessionOf(c);
    const context = new RouterContextProvider();
    context.set(serverContext, {
      runtime,
      session,
      clientIp: c.get("clientIp"),
      authHeaders: authHeaders(c.req.raw.headers, c.get("clientIp")),
    });
    context.set(requestInfoContext, {
      requestId: c.get("requestId"),
      nonce: nonceFor(c),
      site: publicSiteFor(runtime.settings.current()),
      build: { version: build.version, id: build.id, timestamp: build.timestamp },
      themeStylesheet,
      testRoutes: env.TEST_ROUTES,
    });
    const response = await handleRequest(c.req.raw, context);
    // A page that signed in or out set the session cookie itself; a refresh from the lookup must not undo that.
    const ownCookies = response.headers.getSetCookie().some((cookie) => cookie.includes("session_token"));
    if (!ownCookies) for (const cookie of session.setCookies) extra.append("Set-Cookie", cookie);
    for (const [name, value] of extra) response.headers.append(name, value);
    const cacheControl = response.headers.get("Cache-Control");
    if (!cacheControl) {
      // Shared caches may keep what every signed-out visitor sees; anything else is this visitor's alone.
      response.headers.set("Cache-Control", cacheKey ? "no-cache" : "private, no-cache");
    } else if (!cacheKey && /\bpublic\b/.test(cacheControl)) {
      // A page that may be shared when signed out is, for a signed-in visitor, theirs alone (it shows who they are).
      response.headers.set("Cache-Control", cacheControl.replace(/\bpublic\b/, "private"));
    }
    response.headers.set("Vary", mergeVary(response.headers.get("Vary"), PAGE_VARY));
    return cacheKey ? pages.offer(c, cacheKey, response, nonceFor(c)) : response;
  };

  return app;
}

/** API reads answered outside the admission bound: a generation's status (both APIs) and a chat answer's stream. */
const UNGATED_API = /^\/api\/(?:v1\/)?generations\/[^/]+$|^\/api\/chat\/messages\/[^/]+\/stream$/;

/** URL paths of the files in the client build outside `assets/` (those are matched by their prefix). */
function listPublicFiles(dir: string): Set<string> {
  const files = new Set<string>();
  const walk = (folder: string, prefix: string) => {
    let entries;
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (entry.isDirectory()) {
        if (!(prefix === "" && entry.name === "assets")) walk(join(folder, entry.name), `${prefix}/${entry.name}`);
      } else if (!/\.(br|gz)$/.test(entry.name)) files.add(`${prefix}/${entry.name}`);
    }
  };
  walk(dir, "");
  return files;
}

/**
 * A request answered before its body arrived (refused at once, or its body never read) leaves the rest of the body
 * on the connection, where it cannot be told apart from the next request. The rest is read and dropped before the
 * answer goes, up to the body limit, so that the connection serves the requests sent after it; a body beyond the
 * limit, cut off, or held by a reader that stopped gets its answer with `Connection: close`.
 */
function finishUnreadBody(limit: number): MiddlewareHandler {
  return async (c, next) => {
    await next();
    const incoming = (c.env as Partial<HttpBindings> | undefined)?.incoming;
    if (!incoming || incoming.complete || c.res.headers.has("Connection")) return;
    // A request without a body (most: GET, HEAD) has nothing left; its Request object is never made for this.
    const length = incoming.headers["content-length"];
    if (incoming.headers["transfer-encoding"] === undefined && (length === undefined || length === "0")) return;
    if (await drainBody(c.req.raw.body, limit)) return;
    try {
      c.res.headers.set("Connection", "close");
    } catch {
      // Headers of a response made elsewhere may be immutable: the same answer, with headers of its own.
      c.res = new Response(c.res.body, c.res);
      c.res.headers.set("Connection", "close");
    }
  };
}

/** Reads what is left of a request's body, keeping none of it; false when it passes `limit` bytes or cannot be read. */
async function drainBody(body: ReadableStream<Uint8Array> | null, limit: number): Promise<boolean> {
  if (!body) return true;
  if (body.locked) return false;
  const reader = body.getReader();
  let read = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return true;
      read += value.byteLength;
      if (read > limit) {
        void reader.cancel().catch(() => undefined);
        return false;
      }
    }
  } catch {
    return false;
  }
}

/** Whether the path of a URL can be percent-decoded (only a path with a `%` can fail). */
function isDecodablePath(url: string): boolean {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  const end = url.indexOf("?", start);
  const path = end === -1 ? url.slice(start) : url.slice(start, end);
  if (!path.includes("%")) return true;
  try {
    // The result is used so that no bundler drops the call as free of side effects.
    return decodeURIComponent(path).length >= 0;
  } catch {
    return false;
  }
}

function serviceWorkerScript(buildId: string): string {
  return `// Atelier service worker for build ${JSON.stringify(buildId)}
const BUILD = ${JSON.stringify(buildId)};
self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      await self.clients.claim();
      for (const client of await self.clients.matchAll({ type: "window" })) {
        client.postMessage({ type: "UPDATE_AVAILABLE", build: BUILD });
      }
    })(),
  );
});
`;
}
