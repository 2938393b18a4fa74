import { api } from "#app/lib/api.ts";
import { CREDITS_EVENT } from "#app/lib/credits.ts";

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
