import { createHmac } from "node:crypto";

/**
 * A keyed hash of a visitor's address: the same address gives the same hash (repeats and floods are counted), and
 * without the application's secret nobody can tell which address it was, so the address itself is never kept.
 */
export function addressHasher(secret: string): (address: string) => string {
  const key = createHmac("sha256", secret).update("atelier address hash v1").digest();
  return (address) => createHmac("sha256", key).update(address).digest("base64url").slice(0, 32);
}
