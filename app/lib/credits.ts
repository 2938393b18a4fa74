import { useEffect, useState } from "react";
import { api } from "#app/lib/api.ts";
import { useRoot } from "#app/lib/use-site.ts";

const CREDITS_EVENT = "atelier:credits";

/**
 * Asks the server for the credits available now and tells every balance on the page. Called after anything that
 * moves them without a page load: a job submitted, finished, canceled or deleted.
 */
export async function refreshCredits(): Promise<void> {
  try {
    const { credits } = await api<{ credits: { available: number } }>("/me");
    window.dispatchEvent(new CustomEvent<number>(CREDITS_EVENT, { detail: credits.available }));
  } catch {
    // The header keeps the last known figure; the next page load corrects it.
  }
}

/** The credits available to spend: the root's figure, or a fresher one heard since. */
export function useAvailableCredits(): number | null {
  const { credits } = useRoot();
  const [fresh, setFresh] = useState<{ value: number; base: typeof credits } | null>(null);
  useEffect(() => {
    const onCredits = (e: Event) => setFresh({ value: (e as CustomEvent<number>).detail, base: credits });
    window.addEventListener(CREDITS_EVENT, onCredits);
    return () => window.removeEventListener(CREDITS_EVENT, onCredits);
  }, [credits]);
  // A new root figure (a page load, a form) is newer than what was heard before it.
  if (credits === null || credits === undefined) return null;
  return fresh && fresh.base === credits ? fresh.value : credits;
}
