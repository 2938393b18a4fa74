import { createPrivateKey, X509Certificate, type KeyObject } from "node:crypto";
import { readFileSync } from "node:fs";

/**
 * The operator's C2PA signing credentials (`C2PA_CERT`, `C2PA_KEY`), checked the way C2PA validators check a claim
 * signer's certificate, so that a certificate they would refuse stops the process at boot instead of making every
 * output's manifest invalid. Only node:crypto and a small DER reader: no C2PA library is loaded for this.
 */

export type C2paAlgorithm = "ES256" | "ES384" | "ES512";

export interface C2paCredentials {
  /** The certificates as given, leaf first, in DER. */
  chain: Uint8Array[];
  /** The private key in PKCS#8 DER, as WebCrypto imports it. */
  key: Uint8Array;
  algorithm: C2paAlgorithm;
  /** Who signs, as validators show it: the leaf's common name (or organisation), its issuer's, and its last day. */
  subject: string;
  issuer: string;
  validTo: Date;
}

/** A certificate or key that cannot sign C2PA manifests: the variable at fault and why. */
export class C2paCredentialsError extends Error {
  readonly variable: "C2PA_CERT" | "C2PA_KEY";
  constructor(variable: "C2PA_CERT" | "C2PA_KEY", message: string) {
    super(message);
    this.variable = variable;
  }
}

const CURVES: Record<string, C2paAlgorithm> = { prime256v1: "ES256", secp384r1: "ES384", secp521r1: "ES512" };
const EKU_EMAIL_PROTECTION = "1.3.6.1.5.5.7.3.4";
const EKU_DOCUMENT_SIGNING = "1.3.6.1.5.5.7.3.36";
const EKU_ANY = "2.5.29.37.0";
/** Certificate signatures with SHA-256, -384 or -512 (ECDSA, RSA, RSA-PSS whose hash is in its parameters) or Ed25519. */
const SIGNATURE_ALGORITHMS = new Set([
  "1.2.840.10045.4.3.2",
  "1.2.840.10045.4.3.3",
  "1.2.840.10045.4.3.4",
  "1.2.840.113549.1.1.11",
  "1.2.840.113549.1.1.12",
  "1.2.840.113549.1.1.13",
  "1.2.840.113549.1.1.10",
  "1.3.101.112",
]);

/** Reads and checks both files; throws C2paCredentialsError naming the variable at fault. */
export function loadC2paCredentials(certPath: string, keyPath: string, now = new Date()): C2paCredentials {
  const fail = (variable: "C2PA_CERT" | "C2PA_KEY", message: string): never => {
    throw new C2paCredentialsError(variable, message);
  };
  const read = (variable: "C2PA_CERT" | "C2PA_KEY", path: string) => {
    try {
      return readFileSync(path, "utf8");
    } catch (error) {
      return fail(variable, `a readable file (${(error as NodeJS.ErrnoException).code ?? "unreadable"})`);
    }
  };

  const blocks = read("C2PA_CERT", certPath).match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g);
  if (!blocks) return fail("C2PA_CERT", "a PEM file of certificates, the signing one first");
  const certificates = blocks.map((pem, i) => {
    try {
      return new X509Certificate(pem);
    } catch {
      return fail("C2PA_CERT", `a PEM file of certificates (certificate ${i + 1} cannot be read)`);
    }
  });
  const leaf = certificates[0]!;

  let key: KeyObject;
  try {
    key = createPrivateKey(read("C2PA_KEY", keyPath));
  } catch (error) {
    if (error instanceof C2paCredentialsError) throw error;
    return fail("C2PA_KEY", "an unencrypted PEM private key (PKCS#8, as `openssl genpkey` writes)");
  }
  if (!leaf.checkPrivateKey(key)) return fail("C2PA_KEY", "the private key of the first certificate in C2PA_CERT");

  const curve = leaf.publicKey.asymmetricKeyDetails?.namedCurve;
  const algorithm = leaf.publicKey.asymmetricKeyType === "ec" && curve ? CURVES[curve] : undefined;
  if (!algorithm) return fail("C2PA_CERT", "a certificate for an ECDSA key on P-256, P-384 or P-521");

  const need = (ok: boolean, what: string) => {
    if (!ok) fail("C2PA_CERT", `a C2PA claim-signing certificate: ${what}`);
  };
  for (const [i, certificate] of certificates.entries()) {
    const which = i === 0 ? "the signing certificate" : `certificate ${i + 1}`;
    const fields = certificateFields(certificate.raw);
    const selfSigned = certificate.subject === certificate.issuer;
    need(fields.version === 3, `${which} must be X.509 version 3`);
    need(new Date(certificate.validFrom) < now, `${which} is not valid before ${certificate.validFrom}`);
    need(new Date(certificate.validTo) > now, `${which} expired on ${certificate.validTo}`);
    need(fields.keyUsage?.critical === true, `${which} needs a critical keyUsage extension`);
    need(selfSigned || fields.authorityKeyId, `${which} needs an authorityKeyIdentifier`);
    if (certificate.ca) {
      need(fields.subjectKeyId, `${which} (a CA) needs a subjectKeyIdentifier`);
    } else {
      need(!fields.keyUsage?.keyCertSign, `${which} has keyCertSign but is not a CA`);
      const usages = certificate.keyUsage ?? [];
      need(usages.length > 0 && !usages.includes(EKU_ANY), `${which} needs an extendedKeyUsage other than "any"`);
    }
    const issuer = certificates[i + 1];
    if (issuer) need(certificate.checkIssued(issuer), `${which} is not issued by the certificate after it`);
  }
  const leafFields = certificateFields(leaf.raw);
  need(leaf.subject !== leaf.issuer, "the signing certificate signs itself; it must be issued by a CA");
  need(!leaf.ca, "the signing certificate must not be a CA (basicConstraints CA:FALSE)");
  need(leafFields.keyUsage?.digitalSignature === true, "its keyUsage must include digitalSignature");
  const usages = leaf.keyUsage ?? [];
  need(
    usages.includes(EKU_EMAIL_PROTECTION) || usages.includes(EKU_DOCUMENT_SIGNING),
    "its extendedKeyUsage must include emailProtection or documentSigning",
  );
  need(SIGNATURE_ALGORITHMS.has(leafFields.signatureAlgorithm), "it must be signed with SHA-256, -384 or -512");

  return {
    chain: certificates.map((c) => new Uint8Array(c.raw)),
    key: new Uint8Array(key.export({ type: "pkcs8", format: "der" })),
    algorithm,
    subject: nameOf(leaf.subject),
    issuer: nameOf(leaf.issuer),
    validTo: new Date(leaf.validTo),
  };
}

/** A distinguished name as people name it: its common name, else its organisation, else all of it. */
export function nameOf(dn: string): string {
  const field = (key: string) =>
    dn
      .split("\n")
      .find((line) => line.startsWith(`${key}=`))
      ?.slice(key.length + 1);
  return field("CN") ?? field("O") ?? dn.replace(/\n/g, ", ");
}

// A DER reader for the few parts of a certificate node:crypto does not expose: its version, the signature
// algorithm, and which extensions it has and whether they are critical.

interface Tlv {
  tag: number;
  start: number;
  end: number;
}

function tlv(der: Buffer, at: number): Tlv {
  const tag = der[at]!;
  let length = der[at + 1]!;
  let start = at + 2;
  if (length & 0x80) {
    const bytes = length & 0x7f;
    length = 0;
    for (let i = 0; i < bytes; i++) length = length * 256 + der[start + i]!;
    start += bytes;
  }
  return { tag, start, end: start + length };
}

function children(der: Buffer, parent: Tlv): Tlv[] {
  const out: Tlv[] = [];
  for (let at = parent.start; at < parent.end;) {
    const child = tlv(der, at);
    out.push(child);
    at = child.end;
  }
  return out;
}

function oid(der: Buffer, node: Tlv): string {
  const bytes = der.subarray(node.start, node.end);
  const parts = [Math.floor(bytes[0]! / 40), bytes[0]! % 40];
  let value = 0;
  for (const byte of bytes.subarray(1)) {
    value = value * 128 + (byte & 0x7f);
    if (!(byte & 0x80)) {
      parts.push(value);
      value = 0;
    }
  }
  return parts.join(".");
}

interface CertificateFields {
  version: number;
  signatureAlgorithm: string;
  keyUsage?: { critical: boolean; digitalSignature: boolean; keyCertSign: boolean };
  authorityKeyId: boolean;
  subjectKeyId: boolean;
}

function certificateFields(raw: Buffer): CertificateFields {
  const [tbs, algorithm] = children(raw, tlv(raw, 0));
  const parts = children(raw, tbs!);
  const explicitVersion = parts[0]?.tag === 0xa0 ? children(raw, parts[0])[0] : undefined;
  const fields: CertificateFields = {
    version: explicitVersion ? raw[explicitVersion.end - 1]! + 1 : 1,
    signatureAlgorithm: oid(raw, children(raw, algorithm!)[0]!),
    authorityKeyId: false,
    subjectKeyId: false,
  };
  const extensions = parts.find((p) => p.tag === 0xa3);
  if (!extensions) return fields;
  for (const extension of children(raw, children(raw, extensions)[0]!)) {
    const [id, ...rest] = children(raw, extension);
    const critical = rest[0]?.tag === 0x01 && raw[rest[0].start] !== 0;
    const value = rest[rest.length - 1]!;
    switch (oid(raw, id!)) {
      case "2.5.29.15": {
        // keyUsage: a BIT STRING; digitalSignature is the first bit, keyCertSign the sixth.
        const bits = tlv(raw, value.start);
        const first = bits.end - bits.start > 1 ? raw[bits.start + 1]! : 0;
        fields.keyUsage = { critical, digitalSignature: (first & 0x80) !== 0, keyCertSign: (first & 0x04) !== 0 };
        break;
      }
      case "2.5.29.35":
        fields.authorityKeyId = true;
        break;
      case "2.5.29.14":
        fields.subjectKeyId = true;
        break;
    }
  }
  return fields;
}
