import { useEffect, useRef, useState } from "react";
import { useNavigation } from "react-router";
import { LOADING_BAR } from "#app/components/theme.ts";

type Phase = "idle" | "loading" | "done";

/**
 * A thin bar at the top during client navigation. It appears only when a navigation takes longer than the
 * throttle, creeps towards the end over the estimated duration, then completes, fades and resets.
 */
export function LoadingBar() {
  const busy = useNavigation().state !== "idle";
  const [phase, setPhase] = useState<Phase>("idle");
  const shown = useRef(false);

  useEffect(() => {
    if (busy) {
      const timer = setTimeout(() => {
        shown.current = true;
        setPhase("loading");
      }, LOADING_BAR.throttleMs);
      return () => clearTimeout(timer);
    }
    if (!shown.current) return;
    shown.current = false;
    setPhase("done");
    const reset = setTimeout(() => setPhase("idle"), LOADING_BAR.hideDelayMs + LOADING_BAR.resetDelayMs);
    return () => clearTimeout(reset);
  }, [busy]);

  return (
    <div
      className="loading-bar"
      data-phase={phase}
      role="progressbar"
      aria-hidden={phase === "idle"}
      style={{
        height: LOADING_BAR.height,
        ["--loading-estimated" as string]: `${LOADING_BAR.estimatedMs}ms`,
        ["--loading-hide-delay" as string]: `${LOADING_BAR.hideDelayMs}ms`,
      }}
    />
  );
}
