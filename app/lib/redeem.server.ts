import { data } from "react-router";
import type { RedeemResult } from "#app/components/billing/redeem-card.tsx";
import { AppError } from "#server/errors.ts";
import type { Db } from "#server/db/client.ts";
import { redeemCode } from "#server/modules/credits/redeem-code.ts";

/**
 * A page's `redeem` intent (the redemption card's form, on the orders page and in the chat's "out of credits"
 * card): the credits a code gave, or the catalogue key of why it gave none.
 */
export async function redeemIntent(db: Db, userId: string, form: FormData) {
  if (form.get("intent") !== "redeem") return data<RedeemResult>({ error: "common:error.400" }, { status: 400 });
  const code = String(form.get("code") ?? "").trim();
  if (!code) return data<RedeemResult>({ error: "billing:orders.redeem.required" }, { status: 400 });
  try {
    const { credits } = await redeemCode({ db, userId, code: code.slice(0, 64) });
    return data<RedeemResult>({ ok: true, credits });
  } catch (error) {
    if (error instanceof AppError)
      return data<RedeemResult>({ error: `common:${error.messageKey}` }, { status: error.status });
    throw error;
  }
}
