import { execFileSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readC2pa } from "#server/media/c2pa.ts";
import { openApp } from "#tests/support/in-process.ts";
import { makeC2paCertificates, withPixelByteChanged } from "#tests/support/c2pa-certs.ts";

const TRAINED = "http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia";

/*
 * With the operator's certificate, every PNG and JPEG output carries a C2PA manifest that validates: the stored
 * output, and what `/v1` and signed links convert to. A changed byte makes it fail; the XMP stays readable.
 */
describe("C2PA manifests in outputs", () => {
  const pki = makeC2paCertificates({ name: "Studio Nord Signer" });
  let app: Awaited<ReturnType<typeof openApp>>;
  let key: string;
  let files = 0;

  const api = (method: string, path: string, body?: unknown) =>
    app.app.request(`${app.origin}${path}`, {
      method,
      headers: { Authorization: `Bearer ${key}`, ...(body ? { "Content-Type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
  const sourceTypeOf = (bytes: Uint8Array) => {
    const path = join(pki.dir, `${files++}.bin`);
    writeFileSync(path, bytes);
    const out = execFileSync("exiftool", ["-j", "-XMP:DigitalSourceType", path], { encoding: "utf8" });
    return (JSON.parse(out) as { DigitalSourceType?: string }[])[0]!.DigitalSourceType;
  };
  /** Valid, as made by a trained model, by the demo model, signed with the test certificate. */
  const expectSigned = async (bytes: Uint8Array) => {
    expect(await readC2pa(bytes)).toMatchObject({
      present: true,
      valid: true,
      sourceType: TRAINED,
      model: "Atelier Demo Image",
      generator: "Studio Nord",
      signer: { name: "Studio Nord Signer", issuer: "Atelier Test Root CA" },
    });
    expect(sourceTypeOf(bytes)).toBe(TRAINED);
    expect(await readC2pa(withPixelByteChanged(bytes))).toMatchObject({ present: true, valid: false, changed: true });
  };

  beforeAll(async () => {
    app = await openApp({
      SITE_NAME: "Studio Nord",
      SIGNUP_BONUS_CREDITS: "500",
      C2PA_CERT: pki.cert,
      C2PA_KEY: pki.key,
    });
    const cookie = await app.signedIn("signer@example.com");
    const created = await app.call("POST", "/api/keys", { cookie, body: {} });
    key = ((await created.json()) as { secret: string }).secret;
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    rmSync(pki.dir, { recursive: true, force: true });
  });

  it("signs the stored PNG and what /v1 and signed links send as JPEG", async () => {
    const png = await api("POST", "/v1/images/generations", {
      model: "demo-image",
      prompt: "a harbour at noon",
      response_format: "b64_json",
    });
    expect(png.status, await png.clone().text()).toBe(200);
    const stored = (await png.json()) as { data: { b64_json: string }[] };
    await expectSigned(Buffer.from(stored.data[0]!.b64_json, "base64"));

    const jpeg = await api("POST", "/v1/images/generations", {
      model: "demo-image",
      prompt: "a harbour at dusk",
      response_format: "b64_json",
      output_format: "jpeg",
    });
    expect(jpeg.status, await jpeg.clone().text()).toBe(200);
    const converted = (await jpeg.json()) as { data: { b64_json: string }[] };
    const bytes = Buffer.from(converted.data[0]!.b64_json, "base64");
    expect(bytes.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
    await expectSigned(bytes);

    const linked = await api("POST", "/v1/images/generations", {
      model: "demo-image",
      prompt: "a harbour at night",
      output_format: "jpeg",
    });
    const url = new URL(((await linked.json()) as { data: { url: string }[] }).data[0]!.url);
    expect(url.pathname).toMatch(/\.jpg$/);
    const file = await app.app.request(`${app.origin}${url.pathname}${url.search}`);
    expect(file.status).toBe(200);
    await expectSigned(new Uint8Array(await file.arrayBuffer()));
  });
});
