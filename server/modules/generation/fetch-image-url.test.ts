import http from "node:http";
import net, { type AddressInfo } from "node:net";
import sharp from "sharp";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { AppError } from "#server/errors.ts";
import {
  checkImageUrl,
  fetchImageUrl,
  isPublicAddress,
  type FetchImageOptions,
  type ResolvedAddress,
} from "#server/modules/generation/fetch-image-url.ts";

/** Counts every TCP connection it receives: a request that reached it, even a TLS or half-open one, is a failure. */
let canary: http.Server;
let canaryPort = 0;
let canaryConnections = 0;

/** The one server the tests let through (`allowAddress` for its port only, over http). */
let fixture: http.Server;
let fixturePort = 0;
let image: Buffer;
const fixtureHosts: string[] = [];
let onHang: () => void = () => {};
let bigBody: Promise<{ sent: number; total: number; finished: boolean }> = Promise.resolve({
  sent: 0,
  total: 0,
  finished: false,
});

async function listen(server: http.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

function serveFixture(req: http.IncomingMessage, res: http.ServerResponse) {
  fixtureHosts.push(req.headers.host ?? "");
  const url = new URL(req.url ?? "/", "http://fixture");
  const chain = /^\/chain\/(\d+)$/.exec(url.pathname);
  if (chain) {
    const left = Number(chain[1]);
    res.writeHead(302, { location: left > 0 ? `/chain/${left - 1}` : "/image.png" }).end();
    return;
  }
  switch (url.pathname) {
    case "/image.png":
      res.writeHead(200, { "content-type": "image/png", "content-length": image.length }).end(image);
      return;
    case "/untyped":
      res.writeHead(200).end(image);
      return;
    case "/redirect":
      res.writeHead(Number(url.searchParams.get("status") ?? 302), { location: url.searchParams.get("to") ?? "" });
      res.end("moved");
      return;
    case "/not-found":
      res.writeHead(404, { "content-type": "image/png" }).end("nothing here");
      return;
    case "/page":
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end("<html>an image page</html>");
      return;
    case "/declared-huge":
      // Headers only: a client that waits for this body instead of refusing up front waits forever
      res.writeHead(200, { "content-type": "image/png", "content-length": 50 * 1024 * 1024 });
      res.flushHeaders();
      return;
    case "/endless":
      bigBody = streamUntilClosed(res, 256 * 1024 * 1024);
      return;
    case "/stall-body":
      res.writeHead(200, { "content-type": "image/png", "content-length": image.length });
      res.write(image.subarray(0, 10));
      return;
    case "/hang":
      onHang();
      return;
    default:
      res.writeHead(500).end();
  }
}

/** Streams `total` bytes without a Content-Length, honouring back-pressure, and reports how far it got. */
function streamUntilClosed(res: http.ServerResponse, total: number) {
  return new Promise<{ sent: number; total: number; finished: boolean }>((resolve) => {
    let sent = 0;
    const chunk = Buffer.alloc(64 * 1024, 1);
    res.writeHead(200, { "content-type": "image/png" });
    const pump = () => {
      while (sent < total && !res.destroyed) {
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once("drain", pump);
      }
      if (sent >= total) res.end();
    };
    res.on("close", () => resolve({ sent, total, finished: res.writableFinished }));
    pump();
  });
}

const PUBLIC = "93.184.215.14";
const names: Record<string, string[]> = {
  "images.test": ["127.0.0.1"],
  "loopback.test": ["127.0.0.1"],
  "internal.test": ["10.0.0.7"],
  "router.test": ["192.168.1.1"],
  "docker.test": ["172.17.0.1"],
  "cgnat.test": ["100.64.0.1"],
  "metadata.test": ["169.254.169.254"],
  "zero.test": ["0.0.0.0"],
  "mixed.test": [PUBLIC, "10.1.2.3"],
  "mixed-v6.test": [PUBLIC, "::1"],
  "v6-loopback.test": ["::1"],
  "v6-mapped.test": ["::ffff:127.0.0.1"],
  "v6-ula.test": ["fd00:ec2::254"],
  "v6-link-local.test": ["fe80::1"],
  "nat64.test": ["64:ff9b::a9fe:a9fe"],
  "garbage.test": ["0x7f.1"],
  "nothing.test": [],
};
const lookupCalls: string[] = [];

async function lookup(hostname: string): Promise<ResolvedAddress[]> {
  lookupCalls.push(hostname);
  const addresses = names[hostname];
  if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
  return addresses.map((address) => ({ address, family: net.isIP(address) || 4 }));
}

/** Everything the positive tests get: only the address policy stands between a hostile URL and the canary. */
function testOptions(extra: FetchImageOptions = {}): FetchImageOptions {
  return {
    allowHttp: true,
    lookup,
    allowAddress: (address, port) => address === "127.0.0.1" && port === fixturePort,
    timeoutMs: 3_000,
    ...extra,
  };
}

async function failure(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

beforeAll(async () => {
  image = await sharp({ create: { width: 8, height: 8, channels: 3, background: "red" } })
    .png()
    .toBuffer();
  canary = http.createServer((_req, res) => res.end("canary"));
  canary.on("connection", () => canaryConnections++);
  canaryPort = await listen(canary);
  fixture = http.createServer(serveFixture);
  fixturePort = await listen(fixture);

  // The canary must be able to notice a visit, or its count of zero proves nothing
  await new Promise<void>((resolve, reject) => {
    http.get(`http://127.0.0.1:${canaryPort}/`, (res) => res.resume().on("end", resolve)).on("error", reject);
  });
  expect(canaryConnections).toBe(1);
  canaryConnections = 0;
});

afterEach(() => {
  expect(canaryConnections).toBe(0);
});

afterAll(async () => {
  canary.closeAllConnections();
  fixture.closeAllConnections();
  await Promise.all([canary, fixture].map((s) => new Promise((resolve) => s.close(resolve))));
});

describe("fetchImageUrl refuses URLs that could reach inside", () => {
  const hostile: Array<[string, () => string]> = [
    // Literal addresses, every notation the URL parser turns into 127.0.0.1 or equivalent
    ["loopback", () => `http://127.0.0.1:${canaryPort}/`],
    ["loopback, decimal", () => `http://2130706433:${canaryPort}/`],
    ["loopback, octal", () => `http://0177.0.0.1:${canaryPort}/`],
    ["loopback, hexadecimal parts", () => `http://0x7f.1:${canaryPort}/`],
    ["loopback, hexadecimal", () => `http://0x7f000001:${canaryPort}/`],
    ["loopback, short form", () => `http://127.1:${canaryPort}/`],
    ["loopback, elsewhere in 127/8", () => `http://127.0.0.2:${canaryPort}/`],
    ["unspecified 0.0.0.0 (reaches local listeners on Linux)", () => `http://0.0.0.0:${canaryPort}/`],
    ["unspecified, as 0", () => `http://0:${canaryPort}/`],
    ["private 10/8", () => `http://10.0.0.1:${canaryPort}/`],
    ["private 172.16/12", () => `http://172.16.0.1:${canaryPort}/`],
    ["private 192.168/16", () => `http://192.168.0.1:${canaryPort}/`],
    ["CGNAT 100.64/10", () => `http://100.64.0.1:${canaryPort}/`],
    ["cloud metadata", () => "http://169.254.169.254/latest/meta-data/iam/security-credentials/"],
    ["cloud metadata, decimal", () => "http://2852039166/latest/meta-data/"],
    ["link-local", () => `http://169.254.1.1:${canaryPort}/`],
    ["documentation 192.0.2/24", () => `http://192.0.2.1:${canaryPort}/`],
    ["benchmarking 198.18/15", () => `http://198.18.0.1:${canaryPort}/`],
    ["multicast", () => `http://224.0.0.1:${canaryPort}/`],
    ["broadcast", () => `http://255.255.255.255:${canaryPort}/`],
    ["reserved 240/4", () => `http://240.0.0.1:${canaryPort}/`],
    ["IPv6 loopback", () => `http://[::1]:${canaryPort}/`],
    ["IPv6 unspecified", () => `http://[::]:${canaryPort}/`],
    ["IPv4-mapped IPv6, dotted", () => `http://[::ffff:127.0.0.1]:${canaryPort}/`],
    ["IPv4-mapped IPv6, hexadecimal", () => `http://[::ffff:7f00:1]:${canaryPort}/`],
    ["IPv4-mapped IPv6, long form", () => `http://[0:0:0:0:0:ffff:127.0.0.1]:${canaryPort}/`],
    ["IPv4-mapped metadata", () => "http://[::ffff:169.254.169.254]/latest/meta-data/"],
    ["IPv4-compatible IPv6", () => `http://[::127.0.0.1]:${canaryPort}/`],
    ["IPv6 link-local", () => `http://[fe80::1]:${canaryPort}/`],
    ["IPv6 link-local with a zone id", () => `http://[fe80::1%25lo]:${canaryPort}/`],
    ["IPv6 unique-local", () => `http://[fd00::1]:${canaryPort}/`],
    ["IPv6 metadata (AWS)", () => "http://[fd00:ec2::254]/latest/meta-data/"],
    ["IPv6 site-local", () => `http://[fec0::1]:${canaryPort}/`],
    ["IPv6 multicast", () => `http://[ff02::1]:${canaryPort}/`],
    ["IPv6 documentation", () => `http://[2001:db8::1]:${canaryPort}/`],
    ["6to4 embedding loopback", () => `http://[2002:7f00:1::]:${canaryPort}/`],
    ["6to4 embedding metadata", () => "http://[2002:a9fe:a9fe::1]/"],
    ["Teredo with a loopback client", () => `http://[2001:0:4136:e378:8000:63bf:80ff:fffe]:${canaryPort}/`],
    ["NAT64 embedding loopback", () => `http://[64:ff9b::7f00:1]:${canaryPort}/`],
    ["NAT64 embedding metadata", () => "http://[64:ff9b::a9fe:a9fe]/"],
    ["local-use NAT64", () => `http://[64:ff9b:1::a00:1]:${canaryPort}/`],
    // Names: refused by name, or by what the resolver answers
    ["localhost", () => `http://localhost:${canaryPort}/`],
    ["localhost, upper case with a trailing dot", () => `http://LOCALHOST.:${canaryPort}/`],
    ["a subdomain of localhost", () => `http://app.localhost:${canaryPort}/`],
    ["a name resolving to loopback", () => `http://loopback.test:${canaryPort}/`],
    ["a name resolving to 10/8", () => `http://internal.test:${canaryPort}/`],
    ["a name resolving to 192.168/16", () => `http://router.test:${canaryPort}/`],
    ["a name resolving to the Docker bridge", () => `http://docker.test:${canaryPort}/`],
    ["a name resolving to CGNAT", () => `http://cgnat.test:${canaryPort}/`],
    ["a name resolving to the metadata service", () => "http://metadata.test/latest/meta-data/"],
    ["a name resolving to 0.0.0.0", () => `http://zero.test:${canaryPort}/`],
    ["a name resolving to one public and one private address", () => `http://mixed.test:${canaryPort}/`],
    ["a name resolving to one public and one IPv6 loopback address", () => `http://mixed-v6.test:${canaryPort}/`],
    ["a name resolving to IPv6 loopback", () => `http://v6-loopback.test:${canaryPort}/`],
    ["a name resolving to IPv4-mapped loopback", () => `http://v6-mapped.test:${canaryPort}/`],
    ["a name resolving to unique-local IPv6", () => `http://v6-ula.test:${canaryPort}/`],
    ["a name resolving to link-local IPv6", () => `http://v6-link-local.test:${canaryPort}/`],
    ["a name resolving to NAT64 metadata", () => `http://nat64.test:${canaryPort}/`],
    ["a resolver answering a non-canonical address", () => `http://garbage.test:${canaryPort}/`],
    // Schemes and credentials
    ["file:", () => "file:///etc/passwd"],
    ["ftp:", () => `ftp://127.0.0.1:${canaryPort}/image.png`],
    ["data:", () => "data:image/png;base64,iVBORw0KGgo="],
    ["gopher:", () => `gopher://127.0.0.1:${canaryPort}/_GET%20/`],
    ["javascript:", () => "javascript:alert(1)"],
    ["ws:", () => `ws://127.0.0.1:${canaryPort}/`],
    ["credentials", () => `https://user:secret@images.test:${fixturePort}/image.png`],
    ["a user name alone", () => `https://user@images.test:${fixturePort}/image.png`],
    ["not a URL", () => "images.test/image.png"],
    // Redirects from the allowed fixture server
    ["a redirect to the canary", () => redirect(`http://127.0.0.1:${canaryPort}/`)],
    ["a redirect to the canary in decimal", () => redirect(`http://2130706433:${canaryPort}/`)],
    ["a redirect to the canary through IPv4-mapped IPv6", () => redirect(`http://[::ffff:7f00:1]:${canaryPort}/`)],
    ["a 301 to the metadata service", () => redirect("http://169.254.169.254/latest/meta-data/", 301)],
    ["a 307 to a private name", () => redirect(`http://internal.test:${canaryPort}/`, 307)],
    ["a 308 to a name resolving to loopback", () => redirect(`http://loopback.test:${canaryPort}/`, 308)],
    ["a 303 to localhost", () => redirect(`http://localhost:${canaryPort}/`, 303)],
    ["a redirect to file:", () => redirect("file:///etc/passwd")],
    ["a redirect to gopher:", () => redirect(`gopher://127.0.0.1:${canaryPort}/_x`)],
    ["a redirect adding credentials", () => redirect(`http://user:pw@images.test:${fixturePort}/image.png`)],
    ["a chain of four redirects", () => `http://images.test:${fixturePort}/chain/3`],
  ];

  function redirect(to: string, status = 302) {
    return `http://images.test:${fixturePort}/redirect?status=${status}&to=${encodeURIComponent(to)}`;
  }

  it("covers at least thirty hostile URLs", () => {
    expect(hostile.length).toBeGreaterThanOrEqual(30);
  });

  it.each(hostile)("%s", async (_name, url) => {
    expect((await failure(fetchImageUrl(url(), testOptions()))).code).toBe("input_url_refused");
  });

  it.each([
    ["plain http to a public name", "http://example.com/image.png"],
    ["plain http to the allowed fixture", () => `http://images.test:${fixturePort}/image.png`],
  ])("refuses %s unless http is allowed (tests only)", async (_name, url) => {
    const options = { ...testOptions(), allowHttp: false };
    const error = await failure(fetchImageUrl(typeof url === "string" ? url : url(), options));
    expect(error.code).toBe("input_url_refused");
  });

  it("refuses an https URL to the canary", async () => {
    const error = await failure(fetchImageUrl(`https://127.0.0.1:${canaryPort}/`, testOptions()));
    expect(error.code).toBe("input_url_refused");
  });
});

describe("isPublicAddress", () => {
  it.each(["8.8.8.8", PUBLIC, "1.1.1.1", "2606:4700:4700::1111", "2a00:1450:4001:80b::200e", "2002:808:808::1"])(
    "accepts public %s",
    (address) => expect(isPublicAddress(address)).toBe(true),
  );

  it("accepts NAT64 and Teredo forms of public addresses", () => {
    expect(isPublicAddress("64:ff9b::808:808")).toBe(true);
    // Teredo server 65.54.227.120, client 8.8.8.8 stored inverted
    expect(isPublicAddress("2001:0:4136:e378:8000:63bf:f7f7:f7f7")).toBe(true);
  });

  it.each([
    "127.0.0.1",
    "10.255.255.255",
    "172.31.0.1",
    "192.168.255.1",
    "169.254.169.254",
    "100.127.0.1",
    "0.0.0.0",
    "0.1.2.3",
    "192.0.0.8",
    "198.51.100.7",
    "203.0.113.9",
    "198.19.255.255",
    "239.255.255.250",
    "255.255.255.255",
    "::1",
    "::",
    "::ffff:8.8.8.8",
    "::ffff:0:8.8.8.8",
    "fc00::1",
    "fe80::1%eth0",
    "febf::1",
    "fec0::1",
    "ff05::2",
    "2001:db8::1",
    "3fff::1",
    "2002:c0a8:101::1",
    "2001:0:4136:e378:8000:63bf:3fff:fdd2",
    "2001:0:a00:1:8000:63bf:f7f7:f7f7",
    "100::1",
    "127.1",
    "2130706433",
    "example.com",
    "",
  ])("refuses %s", (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });
});

describe("fetchImageUrl downloads from an allowed server", () => {
  it("downloads an image", async () => {
    const bytes = await fetchImageUrl(`http://images.test:${fixturePort}/image.png`, testOptions());
    expect(Buffer.from(bytes).equals(image)).toBe(true);
  });

  it("accepts a body served without a content type", async () => {
    const bytes = await fetchImageUrl(`http://images.test:${fixturePort}/untyped`, testOptions());
    expect(Buffer.from(bytes).equals(image)).toBe(true);
  });

  it("connects to the address it checked, keeping the name in the Host header", async () => {
    // A resolver that answers differently the second time (DNS rebinding) must never be asked again
    let calls = 0;
    const rebinding = async () => {
      calls++;
      return [{ address: calls === 1 ? "127.0.0.1" : "169.254.169.254", family: 4 }];
    };
    fixtureHosts.length = 0;
    const bytes = await fetchImageUrl(
      `http://rebind.test:${fixturePort}/image.png`,
      testOptions({ lookup: rebinding }),
    );
    expect(Buffer.from(bytes).equals(image)).toBe(true);
    expect(calls).toBe(1);
    expect(fixtureHosts).toEqual([`rebind.test:${fixturePort}`]);
  });

  it("follows up to three redirects, checking every hop", async () => {
    lookupCalls.length = 0;
    const bytes = await fetchImageUrl(`http://images.test:${fixturePort}/chain/2`, testOptions());
    expect(Buffer.from(bytes).equals(image)).toBe(true);
    expect(lookupCalls).toEqual(Array(4).fill("images.test"));
  });

  it("follows a redirect to a literal allowed address", async () => {
    const to = `http://127.0.0.1:${fixturePort}/image.png`;
    const bytes = await fetchImageUrl(redirect(to), testOptions());
    expect(Buffer.from(bytes).equals(image)).toBe(true);
  });

  it("honours a smaller redirect limit", async () => {
    const error = await failure(
      fetchImageUrl(`http://images.test:${fixturePort}/chain/0`, testOptions({ maxRedirects: 0 })),
    );
    expect(error.code).toBe("input_url_refused");
  });

  function redirect(to: string) {
    return `http://images.test:${fixturePort}/redirect?to=${encodeURIComponent(to)}`;
  }
});

describe("fetchImageUrl with origins the operator trusts", () => {
  const trusted = () => ({ lookup, timeoutMs: 3_000, allowOrigins: [`http://127.0.0.1:${fixturePort}`] });

  it("downloads over http from a trusted origin on loopback", async () => {
    const bytes = await fetchImageUrl(`http://127.0.0.1:${fixturePort}/image.png`, trusted());
    expect(Buffer.from(bytes).equals(image)).toBe(true);
  });

  it("refuses another port, and a trusted origin's redirect elsewhere, without reaching the canary", async () => {
    const before = canaryConnections;
    for (const url of [
      `http://127.0.0.1:${canaryPort}/image.png`,
      `https://127.0.0.1:${canaryPort}/image.png`,
      `http://127.0.0.1:${fixturePort}/redirect?to=${encodeURIComponent(`https://127.0.0.1:${canaryPort}/x`)}`,
      `http://127.0.0.1:${fixturePort}/redirect?to=${encodeURIComponent(`http://127.0.0.1:${canaryPort}/x`)}`,
    ]) {
      expect((await failure(fetchImageUrl(url, trusted()))).code, url).toBe("input_url_refused");
    }
    expect(canaryConnections).toBe(before);
  });

  it("checks a URL before fetching it: a literal address or local name that is not public is refused", () => {
    for (const url of [
      "http://169.254.169.254/latest/meta-data/",
      "https://10.0.0.1/a.png",
      "https://localhost/a.png",
    ]) {
      expect(() => checkImageUrl(url, { allowOrigins: [`http://127.0.0.1:${fixturePort}`] }), url).toThrow(
        expect.objectContaining({ code: "input_url_refused" }),
      );
    }
    expect(() => checkImageUrl(`http://127.0.0.1:${fixturePort}/image.png`, trusted())).not.toThrow();
    expect(() => checkImageUrl("https://example.com/a.png")).not.toThrow();
  });
});

describe("fetchImageUrl fails cleanly", () => {
  it("stops reading a body as soon as it exceeds the limit", async () => {
    const error = await failure(
      fetchImageUrl(`http://images.test:${fixturePort}/endless`, testOptions({ maxBytes: 256 * 1024 })),
    );
    expect(error.code).toBe("input_url_failed");
    const { sent, total, finished } = await bigBody;
    expect(finished).toBe(false);
    expect(sent).toBeLessThan(total / 4);
  });

  it("refuses a declared Content-Length over the limit without waiting for the body", async () => {
    // The server never sends the body: only an up-front refusal can finish within the test's time
    const error = await failure(
      fetchImageUrl(`http://images.test:${fixturePort}/declared-huge`, testOptions({ timeoutMs: 60_000 })),
    );
    expect(error.code).toBe("input_url_failed");
    expect(error.message).toContain("52428800");
  });

  it("gives up on a server that never answers", async () => {
    const error = await failure(
      fetchImageUrl(`http://images.test:${fixturePort}/hang`, testOptions({ timeoutMs: 200 })),
    );
    expect(error.code).toBe("input_url_failed");
    expect(error.message).toContain("200 ms");
  });

  it("gives up on a body that stalls, the time limit covering the whole download", async () => {
    const error = await failure(
      fetchImageUrl(`http://images.test:${fixturePort}/stall-body`, testOptions({ timeoutMs: 200 })),
    );
    expect(error.code).toBe("input_url_failed");
  });

  it.each([
    ["a 404", "/not-found"],
    ["a web page instead of an image", "/page"],
    ["a redirect without a location", "/redirect?to="],
    ["a 500", "/error"],
  ])("fails on %s", async (_name, path) => {
    const error = await failure(fetchImageUrl(`http://images.test:${fixturePort}${path}`, testOptions()));
    expect(error.code).toBe("input_url_failed");
  });

  it("fails on a name that does not resolve or resolves to nothing", async () => {
    for (const host of ["unknown.test", "nothing.test"]) {
      const error = await failure(fetchImageUrl(`http://${host}:${fixturePort}/image.png`, testOptions()));
      expect(error.code).toBe("input_url_failed");
    }
  });

  it("fails on a refused connection", async () => {
    const closed = http.createServer();
    const port = await listen(closed);
    await new Promise((resolve) => closed.close(resolve));
    const options = testOptions({ allowAddress: (address, p) => address === "127.0.0.1" && p === port });
    const error = await failure(fetchImageUrl(`http://127.0.0.1:${port}/image.png`, options));
    expect(error.code).toBe("input_url_failed");
  });

  it("stops when the caller aborts, with the caller's reason", async () => {
    const controller = new AbortController();
    const reason = new Error("the user went away");
    onHang = () => controller.abort(reason);
    const fetching = fetchImageUrl(
      `http://images.test:${fixturePort}/hang`,
      testOptions({ signal: controller.signal, timeoutMs: 60_000 }),
    );
    await expect(fetching).rejects.toBe(reason);
    onHang = () => {};
  });

  it("does not start when the signal is already aborted", async () => {
    const reason = new Error("already gone");
    fixtureHosts.length = 0;
    const url = `http://images.test:${fixturePort}/image.png`;
    await expect(fetchImageUrl(url, testOptions({ signal: AbortSignal.abort(reason) }))).rejects.toBe(reason);
    expect(fixtureHosts).toEqual([]);
  });
});
