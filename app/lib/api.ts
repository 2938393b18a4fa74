import { FetchError, ofetch } from "ofetch";

/** Why a call to the internal API found no session. */
export type SessionLoss = "expired" | "signedOut";

export const SESSION_LOST_EVENT = "atelier:session-lost";

/** The error body every internal API route answers with. */
export interface ApiErrorBody {
  error: { code: string; message: string };
}

/**
 * The browser's client for the internal API (`/api`, with the session cookie). ofetch's defaults are the product's
 * retry policy: 408, 409, 425, 429, 500, 502, 503 and 504 are retried once for reads, never for writes. A 401 tells
 * the page the session is gone (see SessionWatch), which says why and goes to sign-in.
 */
export const api = ofetch.create({
  baseURL: "/api",
  credentials: "same-origin",
  headers: { Accept: "application/json" },
  onResponse({ response }) {
    // A success that is not JSON did not come from this server (a proxy's or a captive portal's page): say so,
    // rather than let the caller read a page of HTML as its answer.
    if (response.ok && response.status !== 204 && !/\bjson\b/i.test(response.headers.get("content-type") ?? "")) {
      throw new UnreadableAnswer(response.status, response.headers.get("content-type"));
    }
  },
  onResponseError({ response }) {
    if (response.status !== 401) return;
    const code = (response._data as ApiErrorBody | undefined)?.error?.code;
    const detail: SessionLoss = code === "session_expired" ? "expired" : "signedOut";
    window.dispatchEvent(new CustomEvent<SessionLoss>(SESSION_LOST_EVENT, { detail }));
  },
});

/** An answer the server could not have given: a success whose body is not JSON. */
export class UnreadableAnswer extends Error {
  constructor(status: number, contentType: string | null) {
    super(`answer ${status} with ${contentType ?? "no content type"}, not JSON`);
    this.name = "UnreadableAnswer";
  }
}

/** The error code of a failed API call, if the server gave one. */
export function apiErrorCode(error: unknown): string | undefined {
  return error instanceof FetchError ? (error.data as ApiErrorBody | undefined)?.error?.code : undefined;
}
