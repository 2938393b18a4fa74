import { Button, Card, Space, Statistic } from "antd";
import { ShoppingOutlined } from "@ant-design/icons";
import { useTranslation } from "react-i18next";
import { useLocation } from "react-router";
import { formatNumber } from "#common/format.ts";
import { hrefIn, type Locale } from "#common/locales.ts";

/** The credits available, the balance and what is held, each said in a sentence, with the way to buy more. */
export function BalanceCard({
  balance,
  locale,
}: {
  balance: { balance: number; held: number; available: number };
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
      <div className="page-actions">
        <Button type="primary" icon={<ShoppingOutlined />} href={hrefIn(pathname, "/pricing")}>
          {t("orders.buyCredits")}
        </Button>
      </div>
    </Card>
  );
}
