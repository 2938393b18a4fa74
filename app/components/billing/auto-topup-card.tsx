import { Card } from "antd";
import { SyncOutlined } from "#app/components/antd-icons.ts";
import { useTranslation } from "react-i18next";
import { Form } from "react-router";
import { Button } from "#app/components/ui/button.tsx";
import { Alert } from "#app/components/ui/display.tsx";
import { FormItem, Input } from "#app/components/ui/form.tsx";
import { formatMoney, formatNumber } from "#common/format.ts";
import type { Locale } from "#common/locales.ts";
import type { AutoTopUpView } from "#server/modules/billing/auto-topup.ts";

export interface TopUpPack {
  id: string;
  credits: number;
  amount: number;
  currency: string;
}

/** What the page's top-up forms answer when they do not go on to Stripe. */
export type AutoTopUpAnswer = { topUpError: string } | { topUpSaved: true };

/**
 * Automatic top-up: what it does now (on, off, or stopped by a failed charge, and why), and its form: below how many
 * credits, which pack, at most how many times a month. Saving without a saved card goes on to Stripe's page, which
 * saves one. Plain forms: they post before the page's scripts run.
 */
export function AutoTopUpCard({
  topUp,
  packs,
  locale,
  returned,
  answer,
}: {
  topUp: AutoTopUpView | null;
  packs: TopUpPack[];
  locale: Locale;
  /** Back from Stripe's page: the card was saved, or the page was left. */
  returned: "saved" | "canceled" | null;
  answer?: AutoTopUpAnswer;
}) {
  const { t } = useTranslation("billing");
  const packName = (p: TopUpPack) =>
    t("orders.topUp.pack", {
      credits: formatNumber(locale, p.credits),
      price: formatMoney(locale, p.amount, p.currency),
    });
  const chosen = packs.find((p) => p.id === topUp?.packId) ?? packs.find((p) => p.id) ?? null;
  const error = answer && "topUpError" in answer ? answer.topUpError : null;
  if (packs.length === 0) return null;
  return (
    <Card
      className="orders-topup"
      title={
        <span>
          <SyncOutlined aria-hidden /> {t("orders.topUp.title")}
        </span>
      }
    >
      {returned === "saved" && !topUp?.enabled && <Alert type="info" title={t("orders.topUp.savingCard")} />}
      {returned === "canceled" && !topUp?.card && <Alert type="warning" title={t("orders.topUp.cardCanceled")} />}
      {error && <Alert type="error" title={t(error)} />}
      {topUp?.stoppedReason && !topUp.enabled && (
        <Alert type="warning" title={t(`orders.topUp.stopped.${topUp.stoppedReason}`)} />
      )}
      <p className="orders-topup-status" data-testid="topup-status">
        {topUp?.enabled && chosen
          ? t("orders.topUp.on", {
              threshold: formatNumber(locale, topUp.threshold),
              pack: packName(chosen),
              card: t("orders.topUp.card", { brand: brandName(topUp.card?.brand), last4: topUp.card?.last4 ?? "" }),
            })
          : t("orders.topUp.intro")}
      </p>
      {topUp?.enabled && (
        <p className="orders-topup-used">
          {t("orders.topUp.used", {
            count: topUp.monthlyMax,
            used: formatNumber(locale, topUp.usedThisMonth),
            max: formatNumber(locale, topUp.monthlyMax),
          })}
        </p>
      )}
      <Form method="post" className="orders-topup-form">
        <div className="orders-topup-fields">
          <FormItem label={t("orders.topUp.threshold")} htmlFor="topup-threshold" required>
            <Input
              id="topup-threshold"
              name="threshold"
              inputMode="numeric"
              pattern="[0-9]*"
              required
              defaultValue={String(topUp?.threshold ?? Math.max(10, Math.round((chosen?.credits ?? 100) / 5)))}
            />
          </FormItem>
          <FormItem label={t("orders.topUp.packLabel")} htmlFor="topup-pack" required>
            <select id="topup-pack" name="pack" className="orders-native-select" defaultValue={chosen?.id} required>
              {packs.map((p) => (
                <option key={p.id} value={p.id}>
                  {packName(p)}
                </option>
              ))}
            </select>
          </FormItem>
          <FormItem label={t("orders.topUp.monthlyMax")} htmlFor="topup-max" required>
            <Input
              id="topup-max"
              name="monthlyMax"
              inputMode="numeric"
              pattern="[0-9]*"
              required
              defaultValue={String(topUp?.monthlyMax ?? 3)}
            />
          </FormItem>
        </div>
        <p className="orders-topup-help">{t("orders.topUp.help")}</p>
        <div className="orders-topup-actions">
          <Button type="primary" htmlType="submit" name="intent" value="topUp">
            {topUp?.card
              ? topUp.enabled
                ? t("orders.topUp.save")
                : t("orders.topUp.turnOn")
              : t("orders.topUp.setUp")}
          </Button>
          {topUp?.card && (
            <Button htmlType="submit" name="intent" value="topUpCard">
              {t("orders.topUp.changeCard")}
            </Button>
          )}
          {topUp?.enabled && (
            <Button htmlType="submit" name="intent" value="topUpOff" formNoValidate>
              {t("orders.topUp.turnOff")}
            </Button>
          )}
        </div>
      </Form>
    </Card>
  );
}

const BRANDS: Record<string, string> = {
  visa: "Visa",
  mastercard: "Mastercard",
  amex: "American Express",
  discover: "Discover",
  jcb: "JCB",
  unionpay: "UnionPay",
  diners: "Diners Club",
  cartes_bancaires: "Cartes Bancaires",
};
const brandName = (brand: string | undefined) => (brand ? (BRANDS[brand] ?? brand) : "");
