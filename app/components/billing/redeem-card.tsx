import { useEffect, useRef, useState } from "react";
import { Button, Card, Input, Space } from "antd";
import { GiftOutlined } from "#app/components/antd-icons.ts";
import { useTranslation } from "react-i18next";
import { useFetcher } from "react-router";
import { useToast } from "#app/components/feedback.ts";
import { formatNumber } from "#common/format.ts";
import type { Locale } from "#common/locales.ts";

/** What the page's `redeem` intent answers. */
export type RedeemResult = { ok?: true; credits?: number; error?: string };

/**
 * A redemption code's form: the credits it gave, or why it gave none, as a toast. It posts through a fetcher; sent
 * before the page's scripts ran, it posted as a plain form, and the page's own answer (`pageAnswer`) says the same.
 */
export function RedeemCard({
  locale,
  pageAnswer,
  onRedeemed,
  className = "orders-redeem",
}: {
  locale: Locale;
  pageAnswer?: RedeemResult;
  /** Called once per code that gave credits, after the page's data (and the balance) has been read again. */
  onRedeemed?: (credits: number) => void;
  className?: string;
}) {
  const { t } = useTranslation("billing");
  const toast = useToast();
  const redeem = useFetcher<RedeemResult>();
  // A redeemed code is gone from the box: each success starts the input again, empty (state adjusted while
  // rendering, as the answer arrives, rather than in an effect).
  const [round, setRound] = useState(0);
  const answer = redeem.data ?? pageAnswer;
  const [answered, setAnswered] = useState(redeem.data);
  if (redeem.data !== answered) {
    setAnswered(redeem.data);
    if (redeem.data?.ok) setRound(round + 1);
  }
  const told = useRef<RedeemResult | undefined>(undefined);
  useEffect(() => {
    // Each answer is told once, whatever else changes.
    if (redeem.state !== "idle" || !answer || told.current === answer) return;
    told.current = answer;
    if (answer.ok) {
      toast.success(t("messages:credits.redeem.success", { formatted: formatNumber(locale, answer.credits ?? 0) }));
      onRedeemed?.(answer.credits ?? 0);
    } else if (answer.error) {
      toast.error(t(answer.error));
    }
  }, [redeem.state, answer, toast, t, locale, onRedeemed]);
  return (
    <Card
      className={className}
      title={
        <span>
          <GiftOutlined aria-hidden /> {t("orders.redeem.title")}
        </span>
      }
    >
      <redeem.Form method="post">
        <input type="hidden" name="intent" value="redeem" />
        <label htmlFor="redeem-code" className="sr-only">
          {t("orders.redeem.label")}
        </label>
        <Space.Compact block>
          <Input
            key={round}
            id="redeem-code"
            name="code"
            required
            maxLength={64}
            autoComplete="off"
            spellCheck={false}
            placeholder={t("orders.redeem.placeholder")}
          />
          <Button type="primary" htmlType="submit" loading={redeem.state !== "idle"}>
            {t("orders.redeem.submit")}
          </Button>
        </Space.Compact>
      </redeem.Form>
    </Card>
  );
}
