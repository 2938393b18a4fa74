import { execFileSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { c2paSignerOf, readC2pa, signC2pa, stripC2pa, type C2paSigner } from "#server/media/c2pa.ts";
import { DIGITAL_SOURCE_TYPES, embedXmp, provenanceXmp } from "#server/media/xmp.ts";
import { parseEnv } from "#server/env.ts";
import { makeC2paCertificates, withPixelByteChanged } from "#tests/support/c2pa-certs.ts";

const pki = makeC2paCertificates({ name: "Studio Nord Content Credentials" });
afterAll(() => rmSync(pki.dir, { recursive: true, force: true }));

const claim = { sourceType: "trainedAlgorithmicMedia", model: "FLUX.1 [dev]", site: "Studio Nord" } as const;
const xmp = provenanceXmp({
  sourceType: "trainedAlgorithmicMedia",
  site: "Studio Nord",
  generationId: "0b7c6f0e-6d43-4d35-9a55-2f0f3f8f4e21",
  model: "FLUX.1 [dev]",
  createdAt: new Date("2026-11-28T10:00:00Z"),
});

async function picture(container: "png" | "jpeg") {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="96" height="64"><rect width="96" height="64" fill="#224"/><circle cx="40" cy="30" r="20" fill="#e63"/></svg>`;
  const image = sharp(Buffer.from(svg));
  return embedXmp(await (container === "png" ? image.png() : image.jpeg()).toBuffer(), container, xmp);
}

describe("C2PA manifests", () => {
  let signer: C2paSigner;
  beforeAll(() => {
    signer = c2paSignerOf({ C2PA_CERT: pki.cert, C2PA_KEY: pki.key })!;
  });

  it("names the signer from the certificate, and is absent without one", () => {
    expect(signer).toMatchObject({ subject: "Studio Nord Content Credentials", issuer: "Atelier Test Root CA" });
    expect(signer.validTo.getTime()).toBeGreaterThan(Date.now());
    expect(c2paSignerOf({})).toBeNull();
  });

  for (const container of ["png", "jpeg"] as const) {
    it(`signs a ${container.toUpperCase()} that validates, and fails once a byte changes`, async () => {
      const signed = await signC2pa(await picture(container), container, claim, signer);
      expect(await readC2pa(signed)).toMatchObject({
        present: true,
        valid: true,
        changed: false,
        signer: { name: "Studio Nord Content Credentials", issuer: "Atelier Test Root CA" },
        sourceType: DIGITAL_SOURCE_TYPES.trainedAlgorithmicMedia,
        generator: "Studio Nord",
        model: "FLUX.1 [dev]",
      });
      expect((await readC2pa(signed)).statusCodes).toContain("assertion.dataHash.match");
      const tampered = await readC2pa(withPixelByteChanged(signed));
      expect(tampered).toMatchObject({ present: true, valid: false, changed: true });
      expect(tampered.statusCodes).toContain("assertion.dataHash.mismatch");

      // The XMP written before signing is still there for anyone reading it.
      const path = join(pki.dir, `signed.${container}`);
      writeFileSync(path, signed);
      const exif = JSON.parse(execFileSync("exiftool", ["-j", "-XMP:DigitalSourceType", path], { encoding: "utf8" }));
      expect(exif[0].DigitalSourceType).toBe(DIGITAL_SOURCE_TYPES.trainedAlgorithmicMedia);
      // Signing again (a manifest a provider wrote) leaves one manifest, the new one.
      const again = await signC2pa(signed, container, { ...claim, model: "Other" }, signer);
      expect(await readC2pa(again)).toMatchObject({ valid: true, model: "Other" });
      expect(stripC2pa(again, container).length).toBeLessThan(again.length);
      expect(await readC2pa(stripC2pa(again, container))).toMatchObject({ present: false });
    });
  }

  it("reads a file without a manifest as having none", async () => {
    expect(await readC2pa(await picture("png"))).toMatchObject({ present: false, valid: null });
    expect(await readC2pa(new Uint8Array([1, 2, 3]))).toMatchObject({ present: false });
  });
});

describe("C2PA_CERT and C2PA_KEY", () => {
  const message = (env: Record<string, string>) => {
    try {
      parseEnv(env);
      return "";
    } catch (error) {
      return (error as Error).message;
    }
  };

  it("are accepted together when C2PA validators would accept the certificate", () => {
    expect(message({ C2PA_CERT: pki.cert, C2PA_KEY: pki.key })).toBe("");
  });

  it("stop the process with one line naming the variable otherwise", () => {
    expect(message({ C2PA_CERT: pki.cert })).toMatch(/^Invalid environment variable C2PA_KEY: expected set together/);
    expect(message({ C2PA_KEY: pki.key })).toMatch(/^Invalid environment variable C2PA_CERT: expected set together/);
    expect(message({ C2PA_CERT: join(pki.dir, "missing.pem"), C2PA_KEY: pki.key })).toMatch(
      /^Invalid environment variable C2PA_CERT: expected a readable file \(ENOENT\)/,
    );
    expect(message({ C2PA_CERT: pki.cert, C2PA_KEY: join(pki.dir, "ca.key") })).toMatch(
      /^Invalid environment variable C2PA_KEY: expected the private key of the first certificate/,
    );
    expect(message({ C2PA_CERT: pki.key, C2PA_KEY: pki.key })).toMatch(/^Invalid environment variable C2PA_CERT/);
    const selfSigned = makeC2paCertificates({ variant: "self-signed" });
    const onlyC2pa = makeC2paCertificates({ variant: "only-c2pa-eku" });
    try {
      expect(message({ C2PA_CERT: join(selfSigned.dir, "signer.pem"), C2PA_KEY: selfSigned.key })).toMatch(
        /C2PA_CERT: expected a C2PA claim-signing certificate: the signing certificate signs itself/,
      );
      expect(message({ C2PA_CERT: onlyC2pa.cert, C2PA_KEY: onlyC2pa.key })).toMatch(
        /C2PA_CERT: expected a C2PA claim-signing certificate: its extendedKeyUsage must include emailProtection/,
      );
    } finally {
      rmSync(selfSigned.dir, { recursive: true, force: true });
      rmSync(onlyC2pa.dir, { recursive: true, force: true });
    }
  });
});
