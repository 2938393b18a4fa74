import { useRef, useState, type ReactNode } from "react";
import { Button } from "antd";
import { useTranslation } from "react-i18next";
import { useToast } from "#app/components/feedback.ts";
import { CostLine, FailureAlert, usePageLocale } from "#app/components/studio/parts.tsx";
import { useAvailableCredits } from "#app/lib/credits.ts";
import { refreshCredits } from "#app/lib/refresh-credits.ts";
import {
  cancelGeneration,
  describeFailure,
  newIdempotencyKey,
  submitGeneration,
  type GenerationView,
} from "#app/lib/generations.ts";
import type { SubmitInput } from "#common/generation.ts";

/**
 * Sends a generation request: one idempotency key per intended job (a double click, or a retry after a lost answer,
 * is the same job; a changed request is a new one), the failure kept for the form to show, the balance refreshed.
 */
export function useSubmitGeneration(onSubmitted: (g: GenerationView) => void) {
  const locale = usePageLocale();
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<{ code?: string; message?: string } | null>(null);
  const pending = useRef<{ key: string; body: string } | null>(null);
  const submit = async (body: SubmitInput) => {
    if (busy) return;
    const serialized = JSON.stringify(body);
    if (pending.current?.body !== serialized) pending.current = { key: newIdempotencyKey(), body: serialized };
    setBusy(true);
    setFailure(null);
    try {
      const generation = await submitGeneration(body, { locale, idempotencyKey: pending.current.key });
      pending.current = null;
      onSubmitted(generation);
      void refreshCredits();
    } catch (error) {
      const found = describeFailure(error);
      // A refusal is final for this request; a lost answer may be retried with the same key.
      if (found.code) pending.current = null;
      setFailure(found);
    } finally {
      setBusy(false);
    }
  };
  return { submit, busy, failure };
}

/** The end of a studio form: the cost and balance after, what went wrong last time, and the button. */
export function SubmitFooter({
  cost,
  busy,
  failure,
  fallback,
  icon,
  label,
}: {
  cost: number;
  busy: boolean;
  failure: { code?: string; message?: string } | null;
  fallback: string;
  icon: ReactNode;
  label: string;
}) {
  const available = useAvailableCredits();
  return (
    <>
      <CostLine cost={cost} available={available} />
      {failure && <FailureAlert code={failure.code} message={failure.message} fallback={fallback} />}
      <Button type="primary" htmlType="submit" size="large" block loading={busy} icon={icon} className="studio-submit">
        {label}
      </Button>
    </>
  );
}

/** Cancels a running generation from a list: which one is being canceled, and the new state handed to `onCanceled`. */
export function useCancelGeneration(onCanceled: (g: GenerationView) => void) {
  const { t } = useTranslation("studio");
  const locale = usePageLocale();
  const toast = useToast();
  const [canceling, setCanceling] = useState<string | null>(null);
  const cancel = async (g: GenerationView) => {
    setCanceling(g.id);
    try {
      onCanceled(await cancelGeneration(g.id, locale));
      void refreshCredits();
    } catch (error) {
      toast.error(describeFailure(error).message ?? t("common:msg.unknownError"));
    } finally {
      setCanceling(null);
    }
  };
  return { cancel, canceling };
}
