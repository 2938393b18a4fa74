const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a value from a URL is a UUID at all (anything else cannot name a row, and must not reach a query). */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}
