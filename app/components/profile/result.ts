import { useEffect, useRef } from "react";
import { useTranslation } from "react-i18next";
import { useToast } from "#app/components/feedback.ts";

/** What a profile form's action answers: a message to show, or an error (on a field, or as a toast). */
export type ProfileResult = { ok?: string; error?: string; field?: string };

/** Shows a fetcher's answer as a toast once it arrives (a field's error is shown beside the field instead). */
export function useResultToast(result: ProfileResult | undefined) {
  const { t } = useTranslation("user");
  const toast = useToast();
  const seen = useRef<ProfileResult | undefined>(undefined);
  useEffect(() => {
    if (!result || seen.current === result) return;
    seen.current = result;
    if (result.ok) toast.success(t(result.ok));
    else if (result.error && !["name", "delete", "handle", "bio"].includes(result.field ?? ""))
      toast.error(t(result.error));
  }, [result, t, toast]);
}
