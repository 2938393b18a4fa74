import { useEffect, useState } from "react";
import { Button, Card, Input, Space } from "antd";
import { GiftOutlined } from "@ant-design/icons";
import { useTranslation } from "react-i18next";
import { useFetcher } from "react-router";
import { useToast } from "#app/components/feedback.ts";
import { formatNumber } from "#common/format.ts";
import type { Locale } from "#common/locales.ts";

/** What the page's `redeem` intent answers. */
export type RedeemResult = { ok?: true; credits?: number; error?: string };

/** A redemption code's form: the credits it gave, or why it gave none, as a toast. */
export function RedeemCard({ locale }: { locale: Locale }) {
  const { t } = useTranslation("billing");
  const toast = useToast();
  const redeem = useFetcher<RedeemResult>();
  // A redeemed code is gone from the box: each success starts the input again, empty (state adjusted while
  // rendering, as the answer arrives, rather than in an effect).
  const [round, setRound] = useState(0);
  const [answered, setAnswered] = useState(redeem.data);
  if (redeem.data !== answered) {
    setAnswered(redeem.data);
    if (redeem.data?.ok) setRound(round + 1);
  }
  useEffect(() => {
    if (redeem.state !== "idle" || !redeem.data) return;
    if (redeem.data.ok) {
      toast.success(
        t("messages:credits.redeem.success", { formatted: formatNumber(locale, redeem.data.credits ?? 0) }),
      );
    } else if (redeem.data.error) {
      toast.error(t(redeem.data.error));
    }
  }, [redeem.state, redeem.data, toast, t, locale]);
  return (
    <Card
      className="orders-redeem"
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
