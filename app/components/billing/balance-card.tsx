import { Button, Card, Space, Statistic } from "antd";
import { ShoppingOutlined } from "#app/components/antd-icons.ts";
import { useTranslation } from "react-i18next";
import { useLocation } from "react-router";
import { formatDate, formatNumber } from "#common/format.ts";
import { hrefIn, type Locale } from "#common/locales.ts";

/**
 * The credits available, the balance and what is held, each said in a sentence, what of it expires when, and the
 * way to buy more.
 */
export function BalanceCard({
  balance,
  expiring = [],
  locale,
}: {
  balance: { balance: number; held: number; available: number };
  /** The credits that expire, by date, soonest first. */
  expiring?: { credits: number; expiresAt: string }[];
  locale: Locale;
}) {
  const { t } = useTranslation("billing");
  const { pathname } = useLocation();
  return (
    <Card className="orders-balance">
      <Space size={32} wrap>
        <div className="orders-figure">
          <Statistic title={t("orders.available")} value={formatNumber(locale, balance.available)} />
          <p className="orders-figure-help">{t("orders.availableHelp")}</p>
        </div>
        <div className="orders-figure">
          <Statistic title={t("orders.balance")} value={formatNumber(locale, balance.balance)} />
          <p className="orders-figure-help">{t("orders.balanceHelp")}</p>
        </div>
        {balance.held > 0 && <Statistic title={t("orders.held")} value={formatNumber(locale, balance.held)} />}
      </Space>
      {expiring.length > 0 && (
        <ul className="orders-expiring" aria-label={t("orders.expiringTitle")}>
          {expiring.map((e) => (
            <li key={e.expiresAt}>
              {t("orders.expiring", {
                count: e.credits,
                formatted: formatNumber(locale, e.credits),
                date: formatDate(locale, e.expiresAt, { dateOnly: true }),
              })}
            </li>
          ))}
        </ul>
      )}
      <div className="page-actions">
        <Button type="primary" icon={<ShoppingOutlined />} href={hrefIn(pathname, "/pricing")}>
          {t("orders.buyCredits")}
        </Button>
      </div>
    </Card>
  );
}
