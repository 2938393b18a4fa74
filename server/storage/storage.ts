/** Where uploaded and generated files live: the local disk under DATA_DIR, or an S3-compatible bucket. */
export interface Storage {
  /** Which adapter this is, for health reports. */
  readonly kind: "local" | "s3";
  /** Where the files are, for an operator: the folder, or the bucket and its endpoint. */
  readonly where: string;
  /** Writes the whole object; a reader never sees a half-written one. */
  put(key: string, body: Uint8Array, contentType: string): Promise<void>;
  /**
   * Reads an object, or the inclusive byte range `start`–`end` of it; null when there is no such object.
   * `size` is always the whole object's size.
   */
  get(key: string, range?: ByteRange): Promise<StoredBody | null>;
  /** Size and type of an object, or null. */
  stat(key: string): Promise<{ size: number; contentType: string } | null>;
  /** Removes an object; removing a missing one is not an error. */
  delete(key: string): Promise<void>;
  /** Writes and reads back a small object: true when the storage works. */
  check(): Promise<boolean>;
  /** The URL path the app serves the object under. */
  url(key: string): string;
}

export interface ByteRange {
  start: number;
  end: number;
}

export interface StoredBody {
  body: ReadableStream<Uint8Array>;
  size: number;
  contentType: string;
  /** The range actually returned, when one was asked for. */
  range?: ByteRange;
}

export const FILES_PREFIX = "/files/";
const KEY = /^[A-Za-z0-9][A-Za-z0-9/_-]{0,200}\.[a-z0-9]{2,5}$/;

/** Keys are relative paths of letters, digits, `_`, `-` and `/`, with an extension: nothing that can escape. */
export function isStorageKey(key: string): boolean {
  return KEY.test(key) && !key.includes("..") && !key.includes("//");
}
