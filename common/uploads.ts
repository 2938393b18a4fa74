/** Avatar uploads: the size checked in the browser before sending and again on the server. */
export const AVATAR_MAX_BYTES = 2 * 1024 * 1024;
export const AVATAR_SIZE = 256;
