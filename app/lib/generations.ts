import { useCallback, useEffect, useEffectEvent, useState } from "react";
import { FetchError } from "ofetch";
import { api, UnreadableAnswer, type ApiErrorBody } from "#app/lib/api.ts";
import type { GenerationView, MediaView } from "#server/modules/generation/get-generation.ts";
import type { listModels } from "#server/modules/generation/list-models.ts";
import type { SubmitInput } from "#common/generation.ts";
import { OPEN_STATUSES } from "#common/generation.ts";
import { toolPath } from "#common/tools.ts";

export type { GenerationView, MediaView };

/** A model as the pages get it (`listModels`). */
export type ModelView = ReturnType<typeof listModels>[number];

export const isOpen = (g: Pick<GenerationView, "status">) => OPEN_STATUSES.includes(g.status);

/** Where one generation is shown in the dashboard: under its tool's workspace. */
export function resultPath(g: Pick<GenerationView, "id" | "tool">): string {
  return `${toolPath(g.tool)}/${g.id}`;
}

/**
 * What went wrong with a call, for the page to say: `code` is which error it was (`parse_error` for an answer that
 * was not this server's JSON) and `message` the server's reason, already in the page's language, when it gave one.
 */
export function describeFailure(error: unknown): { code?: string; message?: string } {
  if (error instanceof UnreadableAnswer || (error instanceof FetchError && error.cause instanceof UnreadableAnswer)) {
    return { code: "parse_error" };
  }
  if (!(error instanceof FetchError)) return {};
  const body = error.data as ApiErrorBody | undefined;
  return { code: body?.error?.code, message: body?.error?.message };
}

const localeHeader = (locale: string) => ({ "X-Locale": locale });

export async function submitGeneration(input: SubmitInput, options: { locale: string; idempotencyKey: string }) {
  const { generation } = await api<{ generation: GenerationView }>("/generations", {
    method: "POST",
    body: input,
    headers: { ...localeHeader(options.locale), "Idempotency-Key": options.idempotencyKey },
  });
  return generation;
}

export async function fetchGeneration(id: string, locale: string) {
  const { generation } = await api<{ generation: GenerationView }>(`/generations/${id}`, {
    headers: localeHeader(locale),
  });
  return generation;
}

export async function listGenerations(query: Record<string, string | number | undefined>, locale: string) {
  return api<{ items: GenerationView[]; nextCursor: string | null }>("/generations", {
    query,
    headers: localeHeader(locale),
  });
}

export async function cancelGeneration(id: string, locale: string) {
  const { generation } = await api<{ generation: GenerationView }>(`/generations/${id}/cancel`, {
    method: "POST",
    headers: localeHeader(locale),
  });
  return generation;
}

export async function setGenerationVisibility(id: string, visibility: "public" | "private", locale: string) {
  const { generation } = await api<{ generation: GenerationView }>(`/generations/${id}`, {
    method: "PATCH",
    body: { visibility },
    headers: localeHeader(locale),
  });
  return generation;
}

export async function deleteGeneration(id: string, locale: string) {
  await api(`/generations/${id}`, { method: "DELETE", headers: localeHeader(locale) });
}

export async function uploadInputImage(file: Blob, locale: string, options: { mask?: boolean } = {}) {
  const form = new FormData();
  form.append("file", file);
  // A mask is kept lossless (white: what changes).
  if (options.mask) form.append("purpose", "mask");
  const { upload } = await api<{ upload: MediaView }>("/uploads", {
    method: "POST",
    body: form,
    headers: localeHeader(locale),
  });
  return upload;
}

/** How often a running generation is asked about. */
export const POLL_INTERVAL_MS = 3000;

/**
 * Keeps generations that are still running up to date: asks about each open one every few seconds while the page
 * is visible, stops when the page is hidden and asks at once when it is shown again. `onChange` hears every new
 * state; `onError` a failed look (the next one is tried anyway).
 */
export function useLiveGenerations(
  items: GenerationView[],
  options: {
    locale: string;
    onChange: (g: GenerationView, before: GenerationView) => void;
    onError?: (error: unknown) => void;
    enabled?: boolean;
    intervalMs?: number;
  },
) {
  const key = items
    .filter(isOpen)
    .map((g) => g.id)
    .join(",");
  const enabled = options.enabled ?? true;
  const interval = options.intervalMs ?? POLL_INTERVAL_MS;
  // Bumped by `checkNow`: the effect below looks at once.
  const [asked, setAsked] = useState(0);

  const check = useEffectEvent(async () => {
    await Promise.all(
      items.filter(isOpen).map(async (before) => {
        try {
          const next = await fetchGeneration(before.id, options.locale);
          if (
            next.status !== before.status ||
            next.progress !== before.progress ||
            next.etaSeconds !== before.etaSeconds
          ) {
            options.onChange(next, before);
          }
        } catch (error) {
          options.onError?.(error);
        }
      }),
    );
  });

  useEffect(() => {
    if (!key || !enabled) return;
    let timer: number | undefined;
    let stopped = false;
    const schedule = () => {
      window.clearTimeout(timer);
      if (stopped || document.visibilityState === "hidden") return;
      timer = window.setTimeout(async () => {
        await check();
        schedule();
      }, interval);
    };
    const now = () => {
      window.clearTimeout(timer);
      void check().then(schedule);
    };
    const onVisibility = () => {
      if (document.visibilityState === "visible") now();
      else window.clearTimeout(timer);
    };
    document.addEventListener("visibilitychange", onVisibility);
    if (asked > 0) now();
    else schedule();
    return () => {
      stopped = true;
      window.clearTimeout(timer);
      document.removeEventListener("visibilitychange", onVisibility);
    };
  }, [key, enabled, interval, asked]);

  return { checkNow: useCallback(() => setAsked((n) => n + 1), []) };
}

/** A fresh key for one press of a submit button: a double click or a retry of the same press is one job. */
export function newIdempotencyKey(): string {
  return crypto.randomUUID();
}

/** Copies text; false when the browser refused. */
export async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

/** The list state of a gallery: items, the next cursor, loading and failure. */
export function useGenerationList(
  initial: { items: GenerationView[]; nextCursor: string | null },
  query: Record<string, string | undefined>,
  locale: string,
) {
  const [items, setItems] = useState(initial.items);
  const [cursor, setCursor] = useState(initial.nextCursor);
  const [loading, setLoading] = useState(false);
  const [failed, setFailed] = useState(false);
  // New data from the loader (filters changed, page revisited) starts the list again.
  const [base, setBase] = useState(initial);
  if (base !== initial) {
    setBase(initial);
    setItems(initial.items);
    setCursor(initial.nextCursor);
    setFailed(false);
  }
  const loadMore = useCallback(async () => {
    if (!cursor || loading) return;
    setLoading(true);
    try {
      const page = await listGenerations({ ...query, cursor }, locale);
      setItems((before) => [...before, ...page.items.filter((g) => !before.some((b) => b.id === g.id))]);
      setCursor(page.nextCursor);
      setFailed(false);
    } catch {
      setFailed(true);
    } finally {
      setLoading(false);
    }
  }, [cursor, loading, query, locale]);
  const replace = useCallback((g: GenerationView) => setItems((list) => list.map((x) => (x.id === g.id ? g : x))), []);
  const remove = useCallback((id: string) => setItems((list) => list.filter((x) => x.id !== id)), []);
  const prepend = useCallback((g: GenerationView) => setItems((list) => [g, ...list.filter((x) => x.id !== g.id)]), []);
  return { items, hasMore: Boolean(cursor), loading, failed, loadMore, replace, remove, prepend };
}

/**
 * After a submit, brings the results into view when they are out of it (on a phone they sit below the form), so
 * the new job's progress is seen without scrolling.
 */
export function revealResults(): void {
  window.requestAnimationFrame(() => {
    const el = document.querySelector(".studio-results");
    if (!el) return;
    const { top } = el.getBoundingClientRect();
    if (top > window.innerHeight - 80) el.scrollIntoView({ behavior: "smooth", block: "start" });
  });
}
