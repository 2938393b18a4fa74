import { useEffect } from "react";
import { useTranslation } from "react-i18next";
import { useToast } from "#app/components/feedback.ts";
import { FLASH_COOKIE, type FlashKey } from "#common/flash.ts";

const shown = new Set<string>();

/** Shows the toast a redirect left in the flash cookie (once), then clears the cookie. */
export function FlashToast({ flash }: { flash: { key: FlashKey; id: string } | null }) {
  const { t } = useTranslation();
  const toast = useToast();
  useEffect(() => {
    if (!flash) return;
    document.cookie = `${FLASH_COOKIE}=; Path=/; Max-Age=0; SameSite=Lax`;
    const id = `${flash.key}.${flash.id}`;
    if (shown.has(id)) return;
    shown.add(id);
    toast.success(t(`flash.${flash.key}`));
  }, [flash, t, toast]);
  return null;
}
