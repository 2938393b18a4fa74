import { useEffect, useState } from "react";
import { useRoot } from "#app/lib/use-site.ts";

export const CREDITS_EVENT = "atelier:credits";

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
