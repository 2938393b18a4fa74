import { toast } from "#app/components/ui/toast.tsx";

/** Toasts that close by themselves (3 s) or when clicked; the same on every page, with or without Ant Design. */
export function useToast() {
  return toast;
}
