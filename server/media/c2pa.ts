import { randomUUID, X509Certificate } from "node:crypto";
// Types only: erased, so they load nothing.
import type { Signer } from "@trustnxt/c2pa-ts/cose";
import type { DigitalSourceType as LibrarySourceType } from "@trustnxt/c2pa-ts/manifest";
import type { Env } from "#server/env.ts";
import { loadC2paCredentials, nameOf, type C2paAlgorithm, type C2paCredentials } from "./c2pa-certificate.ts";
import { DIGITAL_SOURCE_TYPES, type DigitalSourceType } from "./xmp.ts";

/**
 * C2PA manifests, signed with the operator's certificate, through `@trustnxt/c2pa-ts` (pure JavaScript: the
 * reference library's Node binding downloads a binary at install). Only PNG and JPEG: that version of the library
 * cannot write WebP or MP4, which keep their XMP alone. The library is imported on first use, so a process with no
 * certificate, or one that never reads a manifest, never loads it.
 *
 * A manifest's hash covers every byte of the file but its own, so it is written last: after the XMP, and no file is
 * encoded again after it (sharp would drop it).
 */

export type C2paContainer = "png" | "jpeg";

/** What a manifest says about an output: the `c2pa.created` action's source type and software agent (the model). */
export interface C2paClaim {
  sourceType: DigitalSourceType;
  /** The model's name. */
  model?: string;
  /** The site's name: the claim's generator. */
  site: string;
}

/** The operator's signer, loaded once per certificate; the library and the key are loaded on its first signature. */
export interface C2paSigner {
  /** The signing certificate's common name (or organisation), its issuer's, and its last day. */
  subject: string;
  issuer: string;
  validTo: Date;
  credentials: C2paCredentials;
}

const signers = new Map<string, C2paSigner>();

/** The signer of an environment with `C2PA_CERT` and `C2PA_KEY` (already checked at boot), or null without them. */
export function c2paSignerOf(env: Pick<Env, "C2PA_CERT" | "C2PA_KEY">): C2paSigner | null {
  if (!env.C2PA_CERT || !env.C2PA_KEY) return null;
  const id = `${env.C2PA_CERT}\0${env.C2PA_KEY}`;
  let signer = signers.get(id);
  if (!signer) {
    const credentials = loadC2paCredentials(env.C2PA_CERT, env.C2PA_KEY);
    signer = { subject: credentials.subject, issuer: credentials.issuer, validTo: credentials.validTo, credentials };
    signers.set(id, signer);
  }
  return signer;
}

type Library = Awaited<ReturnType<typeof importLibrary>>;
let library: Promise<Library> | undefined;

async function importLibrary() {
  const [asset, cose, jumbf, manifest, x509] = await Promise.all([
    import("@trustnxt/c2pa-ts/asset"),
    import("@trustnxt/c2pa-ts/cose"),
    import("@trustnxt/c2pa-ts/jumbf"),
    import("@trustnxt/c2pa-ts/manifest"),
    import("@peculiar/x509"),
  ]);
  return { asset, cose, jumbf, manifest, x509 };
}

const loadLibrary = () => (library ??= importLibrary());

const HASHES: Record<C2paAlgorithm, { hash: string; curve: string }> = {
  ES256: { hash: "SHA-256", curve: "P-256" },
  ES384: { hash: "SHA-384", curve: "P-384" },
  ES512: { hash: "SHA-512", curve: "P-521" },
};

/** The library's signer for the credentials, kept with them: the key is imported into WebCrypto once. */
const librarySigners = new WeakMap<C2paCredentials, Promise<Signer>>();

function librarySigner(lib: Library, credentials: C2paCredentials) {
  let signer = librarySigners.get(credentials);
  if (!signer) {
    signer = (async () => {
      const { hash, curve } = HASHES[credentials.algorithm];
      const key = await crypto.subtle.importKey(
        "pkcs8",
        new Uint8Array(credentials.key),
        { name: "ECDSA", namedCurve: curve },
        false,
        ["sign"],
      );
      const [leaf, ...rest] = credentials.chain.map((der) => new lib.x509.X509Certificate(new Uint8Array(der)));
      // The library's own LocalSigner (0.9) writes ECDSA signatures in DER; COSE wants r‖s (IEEE P1363), which is
      // what WebCrypto returns, and the reference validator refuses DER.
      return {
        algorithm: lib.cose.CoseAlgorithmIdentifier[credentials.algorithm],
        certificate: leaf!,
        chainCertificates: rest,
        sign: async (payload: Uint8Array) =>
          new Uint8Array(await crypto.subtle.sign({ name: "ECDSA", hash }, key, new Uint8Array(payload))),
      };
    })();
    librarySigners.set(credentials, signer);
  }
  return signer;
}

/**
 * The file with a signed C2PA manifest: a `c2pa.created` action with the digital source type and the model as its
 * software agent, the site as the claim's generator, and a hash of every other byte. Nothing may change the file
 * afterwards. A manifest the file had (a provider's own) is removed first: it could not be valid any more.
 */
export async function signC2pa(
  bytes: Uint8Array,
  container: C2paContainer,
  claim: C2paClaim,
  signer: C2paSigner,
): Promise<Uint8Array> {
  const lib = await loadLibrary();
  const { manifest: m } = lib;
  const librarySignerOf = await librarySigner(lib, signer.credentials);
  const file = stripC2pa(bytes, container);
  const asset =
    container === "png" ? new lib.asset.PNG(new Uint8Array(file)) : new lib.asset.JPEG(new Uint8Array(file));
  const store = new m.ManifestStore();
  const manifest = store.createManifest({
    claimVersion: m.ClaimVersion.V2,
    assetFormat: asset.mimeType,
    instanceID: `xmp:iid:${randomUUID()}`,
    defaultHashAlgorithm: "SHA-256",
    signer: librarySignerOf,
  });
  manifest.claim!.claimGeneratorName = claim.site;
  manifest.claim!.claimGeneratorVersion = undefined;
  // The library reserves 25 000 bytes for the signature by default; a signature and a short chain fit in 4 KiB.
  manifest.signature = m.Signature.create(librarySignerOf, 4096);
  const actions = new m.ActionAssertion();
  actions.actions.push({
    action: m.ActionType.C2paCreated,
    digitalSourceType: DIGITAL_SOURCE_TYPES[claim.sourceType] as LibrarySourceType,
    ...(claim.model ? { softwareAgent: { name: claim.model } } : {}),
  });
  manifest.addAssertion(actions);
  const hash = m.DataHashAssertion.create("SHA-256");
  manifest.addAssertion(hash);
  await asset.ensureManifestSpace(store.measureSize());
  await hash.updateWithAsset(asset);
  await manifest.sign(librarySignerOf);
  await asset.writeManifestJUMBF(store.getBytes());
  return asset.getDataRange();
}

/** What a file's C2PA manifest says, as `/verify` shows it. */
export interface C2paReading {
  /** The file holds a C2PA manifest. */
  present: boolean;
  /** Its signature and its hashes hold (null: a container this library cannot check). */
  valid: boolean | null;
  /** Some byte changed after it was signed (its hash no longer matches). */
  changed: boolean;
  /** The C2PA status codes of the validation, as the library gave them. */
  statusCodes: string[];
  /** The signing certificate's common name and its issuer's; who they are is not checked against any trust list. */
  signer: { name: string; issuer: string } | null;
  sourceType: string | null;
  /** The claim's generator (the site or tool that wrote it). */
  generator: string | null;
  /** The `c2pa.created` action's software agent (the model). */
  model: string | null;
}

const NONE: C2paReading = {
  present: false,
  valid: null,
  changed: false,
  statusCodes: [],
  signer: null,
  sourceType: null,
  generator: null,
  model: null,
};

/** A JUMBF box's type and C2PA's label: a file with neither holds no manifest, and the library need not be loaded. */
const mayHoldManifest = (file: Buffer) => file.includes("jumb") && file.includes("c2pa");

/** Reads and validates a file's C2PA manifest. Never throws: malformed data is an invalid manifest. */
export async function readC2pa(bytes: Uint8Array): Promise<C2paReading> {
  const file = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (!mayHoldManifest(file)) return NONE;
  const lib = await loadLibrary();
  const data = new Uint8Array(file);
  const Kind = [lib.asset.JPEG, lib.asset.PNG, lib.asset.BMFF].find((k) => k.canRead(data));
  if (!Kind) return { ...NONE, present: true };
  let asset;
  let jumbf;
  try {
    asset = new Kind(data);
    jumbf = asset.getManifestJUMBF();
  } catch {
    return NONE;
  }
  if (!jumbf) return NONE;
  try {
    const store = lib.manifest.ManifestStore.read(lib.jumbf.SuperBox.fromBuffer(new Uint8Array(jumbf)));
    const result = await store.validate(asset);
    const active = store.getActiveManifest();
    const created = active?.assertions
      ?.getActionAssertions()
      .flatMap((a) => a.actions)
      .find((a) => a.action === lib.manifest.ActionType.C2paCreated);
    const certificate = active?.signature?.signatureData.certificate;
    let signer: C2paReading["signer"] = null;
    if (certificate) {
      const parsed = new X509Certificate(new Uint8Array(certificate.rawData));
      signer = { name: nameOf(parsed.subject), issuer: nameOf(parsed.issuer) };
    }
    const codes = result.statusEntries.map((e) => e.code as string);
    return {
      present: true,
      valid: result.isValid,
      changed: result.statusEntries.some((e) => !e.success && String(e.code).endsWith("Hash.mismatch")),
      statusCodes: codes,
      signer,
      sourceType: created?.digitalSourceType ?? null,
      generator: active?.claim?.claimGeneratorName ?? null,
      model: created?.softwareAgent?.name ?? null,
    };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return { ...NONE, present: true, valid: false, statusCodes: typeof code === "string" ? [code] : [] };
  }
}

/**
 * The file without any C2PA manifest: a PNG's `caBX` chunks, a JPEG's APP11 JUMBF segments. A manifest a provider
 * signed no longer validates once Atelier's XMP is in the file, so it is removed rather than left to say "changed".
 */
export function stripC2pa(bytes: Uint8Array, container: C2paContainer): Uint8Array {
  const file = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return container === "png" ? stripPng(file) : stripJpeg(file);
}

function stripPng(file: Buffer): Buffer {
  const parts: Buffer[] = [file.subarray(0, 8)];
  let at = 8;
  let found = false;
  while (at + 12 <= file.length) {
    const end = at + 12 + file.readUInt32BE(at);
    if (end > file.length) return file;
    const type = file.toString("latin1", at + 4, at + 8);
    if (type === "caBX") found = true;
    else parts.push(file.subarray(at, end));
    at = end;
    if (type === "IEND") break;
  }
  return found ? Buffer.concat(parts) : file;
}

function stripJpeg(file: Buffer): Buffer {
  if (file[0] !== 0xff || file[1] !== 0xd8) return file;
  const parts: Buffer[] = [file.subarray(0, 2)];
  let at = 2;
  let found = false;
  while (at + 4 <= file.length && file[at] === 0xff) {
    const marker = file[at + 1]!;
    if (marker === 0xda || marker === 0xd9) break;
    const end = at + 2 + file.readUInt16BE(at + 2);
    if (end > file.length) return file;
    // APP11 segments carrying JUMBF start with the common identifier "JP".
    if (marker === 0xeb && file.toString("latin1", at + 4, at + 6) === "JP") found = true;
    else parts.push(file.subarray(at, end));
    at = end;
  }
  if (!found) return file;
  parts.push(file.subarray(at));
  return Buffer.concat(parts);
}
