import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export const S3_TEST = {
  bucket: "atelier-test",
  region: "us-east-1",
  accessKeyId: "AKIAATELIERFAKE00000",
  secretAccessKey: "atelierFakeSecretAccessKey0000000000000",
} as const;

export interface FakeObject {
  body: Buffer;
  contentType: string;
  etag: string;
  lastModified: Date;
}

export interface FakeS3Request {
  method: string;
  /** The object key, decoded; empty for a bucket-level request. */
  key: string;
  range?: string;
  status: number;
  /** S3's error code when the request failed. */
  code?: string;
}

export interface FakeS3 {
  /** Endpoint for path-style addressing (`<url>/<bucket>/<key>`). */
  url: string;
  bucket: string;
  region: string;
  /** The bucket's objects by key. */
  objects: Map<string, FakeObject>;
  requests: FakeS3Request[];
  /** While true every request answers 503 ServiceUnavailable, as S3 does when it sheds load. */
  outage: boolean;
  /** The next this many requests answer 503, then the service recovers: a transient hiccup. */
  flaky: number;
  close(): Promise<void>;
}

/** How far a request's x-amz-date may be from the server's clock (S3's limit). */
const MAX_SKEW_MS = 15 * 60 * 1000;
const AUTHORIZATION =
  /^AWS4-HMAC-SHA256 Credential=([^/,\s]+)\/(\d{8})\/([^/,\s]+)\/([^/,\s]+)\/aws4_request,\s*SignedHeaders=([a-z0-9;-]+),\s*Signature=([0-9a-f]{64})$/;

const sha256 = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");
const hmac = (key: string | Buffer, data: string) => createHmac("sha256", key).update(data).digest();

/** SigV4's URI encoding: RFC 3986 unreserved characters stay, everything else is %XX in upper case. */
const uriEncode = (value: string) =>
  encodeURIComponent(value).replace(/[!'()*]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`);

function canonicalQuery(rawQuery: string): string {
  if (!rawQuery) return "";
  return rawQuery
    .split("&")
    .filter(Boolean)
    .map((pair) => {
      const at = pair.indexOf("=");
      const name = at === -1 ? pair : pair.slice(0, at);
      const value = at === -1 ? "" : pair.slice(at + 1);
      return [uriEncode(decodeURIComponent(name)), uriEncode(decodeURIComponent(value))] as const;
    })
    .sort(([a, x], [b, y]) => (a === b ? (x < y ? -1 : x > y ? 1 : 0) : a < b ? -1 : 1))
    .map(([name, value]) => `${name}=${value}`)
    .join("&");
}

/** `20260102T030405Z` → milliseconds, or NaN. */
function parseAmzDate(value: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  if (!m) return NaN;
  const [, y, mo, d, h, mi, s] = m.map(Number) as [number, number, number, number, number, number, number];
  return Date.UTC(y, mo - 1, d, h, mi, s);
}

const escapeXml = (s: string) =>
  s.replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" })[ch]!);

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

class S3Error extends Error {
  readonly status: number;
  readonly code: string;
  readonly extra: Record<string, string>;
  constructor(status: number, code: string, message: string, extra: Record<string, string> = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.extra = extra;
  }
}

/**
 * A local S3 bucket with path-style addressing: PutObject, GetObject (with a single byte range), HeadObject and
 * DeleteObject, S3's XML error bodies, and AWS Signature Version 4 checked for real: the signature is recomputed
 * from the canonical request with the configured secret, and the signed payload hash is compared with the body.
 */
export async function startFakeS3(
  options: { bucket?: string; region?: string; accessKeyId?: string; secretAccessKey?: string } = {},
): Promise<FakeS3> {
  const bucket = options.bucket ?? S3_TEST.bucket;
  const region = options.region ?? S3_TEST.region;
  const accessKeyId = options.accessKeyId ?? S3_TEST.accessKeyId;
  const secretAccessKey = options.secretAccessKey ?? S3_TEST.secretAccessKey;

  /** Checks the Authorization header; throws the S3Error that S3 would answer with. */
  const authenticate = (req: IncomingMessage, rawPath: string, rawQuery: string, body: Buffer) => {
    const header = req.headers.authorization;
    if (/(^|&)X-Amz-Algorithm=/i.test(rawQuery)) {
      throw new S3Error(501, "NotImplemented", "Query-string authentication is not implemented by this server.");
    }
    if (!header) throw new S3Error(403, "AccessDenied", "Access Denied");
    const m = AUTHORIZATION.exec(header);
    if (!m) throw new S3Error(400, "AuthorizationHeaderMalformed", "The authorization header is malformed.");
    const [, keyId, scopeDate, scopeRegion, service, signedHeaderList, signature] = m as unknown as string[];
    if (keyId !== accessKeyId) {
      throw new S3Error(
        403,
        "InvalidAccessKeyId",
        "The AWS Access Key Id you provided does not exist in our records.",
        {
          AWSAccessKeyId: keyId!,
        },
      );
    }
    if (scopeRegion !== region || service !== "s3") {
      throw new S3Error(
        400,
        "AuthorizationHeaderMalformed",
        `The authorization header is malformed; the region '${scopeRegion}' is wrong; expecting '${region}'`,
        { Region: region },
      );
    }
    const amzDate = String(req.headers["x-amz-date"] ?? "");
    const signedAt = parseAmzDate(amzDate);
    if (Number.isNaN(signedAt) || !amzDate.startsWith(scopeDate!)) {
      throw new S3Error(403, "AccessDenied", "AWS authentication requires a valid Date or x-amz-date header");
    }
    if (Math.abs(Date.now() - signedAt) > MAX_SKEW_MS) {
      throw new S3Error(
        403,
        "RequestTimeTooSkewed",
        "The difference between the request time and the current time is too large.",
      );
    }
    const payloadHash = req.headers["x-amz-content-sha256"];
    if (typeof payloadHash !== "string") {
      throw new S3Error(400, "InvalidRequest", "Missing required header for this request: x-amz-content-sha256");
    }
    if (payloadHash.startsWith("STREAMING-")) {
      throw new S3Error(501, "NotImplemented", "Chunked (aws-chunked) uploads are not implemented by this server.");
    }
    if (payloadHash !== "UNSIGNED-PAYLOAD" && payloadHash !== sha256(body)) {
      throw new S3Error(
        400,
        "XAmzContentSHA256Mismatch",
        "The provided 'x-amz-content-sha256' header does not match what was computed.",
      );
    }
    const signedHeaders = signedHeaderList!.split(";");
    if (!signedHeaders.includes("host")) {
      throw new S3Error(400, "AuthorizationHeaderMalformed", "The host header must be signed.");
    }
    const canonicalHeaders = signedHeaders
      .map((name) => {
        const value = req.headers[name];
        const joined = Array.isArray(value) ? value.join(",") : (value ?? "");
        return `${name}:${joined.trim().replace(/\s+/g, " ")}\n`;
      })
      .join("");
    const canonicalRequest = [
      req.method,
      rawPath,
      canonicalQuery(rawQuery),
      canonicalHeaders,
      signedHeaderList,
      payloadHash,
    ].join("\n");
    const scope = `${scopeDate}/${scopeRegion}/${service}/aws4_request`;
    const stringToSign = ["AWS4-HMAC-SHA256", amzDate, scope, sha256(canonicalRequest)].join("\n");
    const signingKey = hmac(
      hmac(hmac(hmac(`AWS4${secretAccessKey}`, scopeDate!), scopeRegion!), service!),
      "aws4_request",
    );
    const expected = Buffer.from(createHmac("sha256", signingKey).update(stringToSign).digest("hex"));
    if (!timingSafeEqual(expected, Buffer.from(signature!))) {
      throw new S3Error(
        403,
        "SignatureDoesNotMatch",
        "The request signature we calculated does not match the signature you provided. Check your key and signing method.",
        { AWSAccessKeyId: keyId!, StringToSign: stringToSign, CanonicalRequest: canonicalRequest },
      );
    }
  };

  /** A single `bytes=` range as S3 reads it: null to send the whole object (no or unsupported range). */
  const rangeOf = (header: string | undefined, size: number): { start: number; end: number } | null => {
    const m = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
    if (!m || (m[1] === "" && m[2] === "")) return null;
    const unsatisfiable = () =>
      new S3Error(416, "InvalidRange", "The requested range is not satisfiable", {
        RangeRequested: header!,
        ActualObjectSize: String(size),
      });
    if (m[1] === "") {
      const suffix = Number(m[2]);
      if (suffix === 0 || size === 0) throw unsatisfiable();
      return { start: Math.max(0, size - suffix), end: size - 1 };
    }
    const start = Number(m[1]);
    const end = m[2] === "" ? size - 1 : Number(m[2]);
    if (end < start) return null;
    if (start >= size) throw unsatisfiable();
    return { start, end: Math.min(end, size - 1) };
  };

  const fake: FakeS3 = {
    url: "",
    bucket,
    region,
    objects: new Map(),
    requests: [],
    outage: false,
    flaky: 0,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };

  const handle = async (req: IncomingMessage, res: ServerResponse, record: FakeS3Request) => {
    const rawUrl = req.url ?? "/";
    const at = rawUrl.indexOf("?");
    const rawPath = at === -1 ? rawUrl : rawUrl.slice(0, at);
    const rawQuery = at === -1 ? "" : rawUrl.slice(at + 1);
    const body = await readBody(req);
    const [, bucketName = "", ...rest] = rawPath.split("/");
    const key = decodeURIComponent(rest.join("/"));
    record.key = key;

    if (fake.outage || fake.flaky > 0) {
      if (!fake.outage) fake.flaky -= 1;
      throw new S3Error(503, "ServiceUnavailable", "Please reduce your request rate.");
    }
    authenticate(req, rawPath, rawQuery, body);
    if (decodeURIComponent(bucketName) !== bucket) {
      throw new S3Error(404, "NoSuchBucket", "The specified bucket does not exist", { BucketName: bucketName });
    }
    if (!key) throw new S3Error(501, "NotImplemented", "Bucket operations are not implemented by this server.");

    const headers = (object: FakeObject) => ({
      "Content-Type": object.contentType,
      ETag: object.etag,
      "Last-Modified": object.lastModified.toUTCString(),
      "Accept-Ranges": "bytes",
    });
    const noSuchKey = () => new S3Error(404, "NoSuchKey", "The specified key does not exist.", { Key: key });

    switch (req.method) {
      case "PUT": {
        if (req.headers["x-amz-copy-source"]) {
          throw new S3Error(501, "NotImplemented", "CopyObject is not implemented by this server.");
        }
        const etag = `"${createHash("md5").update(body).digest("hex")}"`;
        fake.objects.set(key, {
          body,
          contentType: req.headers["content-type"] ?? "binary/octet-stream",
          etag,
          lastModified: new Date(),
        });
        res.writeHead(200, { ETag: etag });
        return res.end();
      }
      case "GET":
      case "HEAD": {
        const object = fake.objects.get(key);
        if (!object) throw noSuchKey();
        const size = object.body.length;
        const range = req.method === "GET" ? rangeOf(req.headers.range, size) : null;
        if (!range) {
          res.writeHead(200, { ...headers(object), "Content-Length": size });
          return res.end(req.method === "GET" ? object.body : undefined);
        }
        res.writeHead(206, {
          ...headers(object),
          "Content-Length": range.end - range.start + 1,
          "Content-Range": `bytes ${range.start}-${range.end}/${size}`,
        });
        return res.end(object.body.subarray(range.start, range.end + 1));
      }
      case "DELETE":
        fake.objects.delete(key);
        res.writeHead(204);
        return res.end();
      default:
        throw new S3Error(405, "MethodNotAllowed", "The specified method is not allowed against this resource.");
    }
  };

  const server: Server = createServer((req, res) => {
    const requestId = randomBytes(8).toString("hex").toUpperCase();
    res.setHeader("x-amz-request-id", requestId);
    res.setHeader("Server", "AmazonS3");
    const record: FakeS3Request = { method: req.method ?? "GET", key: "", range: req.headers.range, status: 0 };
    fake.requests.push(record);
    res.on("finish", () => (record.status = res.statusCode));
    handle(req, res, record).catch((error: unknown) => {
      const e =
        error instanceof S3Error ? error : new S3Error(500, "InternalError", "We encountered an internal error.");
      record.code = e.code;
      const extra = Object.entries(e.extra)
        .map(([name, value]) => `<${name}>${escapeXml(value)}</${name}>`)
        .join("");
      const xml =
        `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${e.code}</Code><Message>${escapeXml(e.message)}</Message>` +
        `${extra}<RequestId>${requestId}</RequestId></Error>`;
      const head: Record<string, string | number> = { "Content-Type": "application/xml" };
      if (e.code === "InvalidRange") head["Content-Range"] = `bytes */${e.extra.ActualObjectSize}`;
      // A HEAD answer has no body, so S3 clients only see the status there.
      if (req.method === "HEAD") {
        res.writeHead(e.status, head);
        return res.end();
      }
      res.writeHead(e.status, { ...head, "Content-Length": Buffer.byteLength(xml) });
      res.end(xml);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}
