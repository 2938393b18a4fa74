import { execFileSync } from "node:child_process";
import { crc32 } from "node:zlib";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A private test PKI made with openssl, the way the provenance guide tells operators to make one for trying C2PA:
 * a root CA and a P-256 claim-signing certificate it issued (critical digitalSignature, CA:FALSE, emailProtection
 * and C2PA's claim-signing EKU, key identifiers). `variant` makes a leaf validators refuse.
 */
export function makeC2paCertificates(
  options: { name?: string; variant?: "valid" | "self-signed" | "only-c2pa-eku" } = {},
): { dir: string; cert: string; key: string; ca: string } {
  const dir = mkdtempSync(join(tmpdir(), "c2pa-pki-"));
  const name = options.name ?? "Atelier Test Signer";
  const eku = options.variant === "only-c2pa-eku" ? "1.3.6.1.4.1.62558.2.1" : "emailProtection, 1.3.6.1.4.1.62558.2.1";
  writeFileSync(
    join(dir, "ca.cnf"),
    `[req]\ndistinguished_name = dn\nprompt = no\n[dn]\nCN = Atelier Test Root CA\nO = Atelier Test\n` +
      `[v3_ca]\nbasicConstraints = critical, CA:TRUE\nkeyUsage = critical, keyCertSign, cRLSign\n` +
      `subjectKeyIdentifier = hash\n`,
  );
  writeFileSync(
    join(dir, "leaf.cnf"),
    `[req]\ndistinguished_name = dn\nprompt = no\n[dn]\nCN = ${name}\nO = Atelier Test\n` +
      `[v3_signer]\nbasicConstraints = critical, CA:FALSE\nkeyUsage = critical, digitalSignature\n` +
      `extendedKeyUsage = ${eku}\nsubjectKeyIdentifier = hash\nauthorityKeyIdentifier = keyid:always\n`,
  );
  const openssl = (...args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: "pipe" });
  const ec = (out: string) =>
    openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", out);
  ec("ca.key");
  openssl(
    ...["req", "-new", "-x509", "-sha256", "-key", "ca.key", "-days", "30", "-config", "ca.cnf"],
    ...["-extensions", "v3_ca", "-out", "ca.pem"],
  );
  ec("signer.key");
  if (options.variant === "self-signed") {
    openssl(
      ...["req", "-new", "-x509", "-sha256", "-key", "signer.key", "-days", "30", "-config", "leaf.cnf"],
      ...["-extensions", "v3_signer", "-out", "signer.pem"],
    );
  } else {
    openssl("req", "-new", "-sha256", "-key", "signer.key", "-config", "leaf.cnf", "-out", "signer.csr");
    openssl(
      ...["x509", "-req", "-sha256", "-in", "signer.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial"],
      ...["-days", "30", "-extfile", "leaf.cnf", "-extensions", "v3_signer", "-out", "signer.pem"],
    );
  }
  const chain = join(dir, "chain.pem");
  writeFileSync(chain, readFileSync(join(dir, "signer.pem"), "utf8") + readFileSync(join(dir, "ca.pem"), "utf8"));
  return { dir, cert: chain, key: join(dir, "signer.key"), ca: join(dir, "ca.pem") };
}

/**
 * The file with one byte of its image data changed: in a PNG's first IDAT chunk (its CRC fixed, so a decoder still
 * reads it), in a JPEG's scan just after its start-of-scan header (found by walking the segments).
 */
export function withPixelByteChanged(bytes: Uint8Array): Buffer {
  const file = Buffer.from(bytes);
  if (file[0] === 0x89) {
    const at = file.indexOf("IDAT") - 4;
    const length = file.readUInt32BE(at);
    file[at + 8 + Math.floor(length / 2)]! ^= 0x01;
    file.writeUInt32BE(
      crc32(file.subarray(at + 8, at + 8 + length), crc32(file.subarray(at + 4, at + 8))),
      at + 8 + length,
    );
    return file;
  }
  // Walk the segments to the real start-of-scan: the bytes FF DA may also occur inside a segment (the manifest's
  // signature is random), and changing the manifest itself is another failure than a changed image.
  let sos = 2;
  while (file[sos] === 0xff && file[sos + 1] !== 0xda) {
    sos += 2 + file.readUInt16BE(sos + 2);
  }
  if (file[sos] !== 0xff) throw new Error("no start-of-scan in this JPEG");
  file[sos + 2 + file.readUInt16BE(sos + 2) + 4]! ^= 0x01;
  return file;
}
