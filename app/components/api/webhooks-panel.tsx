import { useState } from "react";
import { Link, useLocation } from "react-router";
import { Button, Input, Popconfirm, Space, Table, Tag, Typography } from "antd";
import {
  CopyOutlined,
  EyeInvisibleOutlined,
  EyeOutlined,
  ReloadOutlined,
  SyncOutlined,
} from "#app/components/antd-icons.ts";
import { useTranslation } from "react-i18next";
import { useToast } from "#app/components/feedback.ts";
import { RelativeTime } from "#app/components/relative-time.tsx";
import { api } from "#app/lib/api.ts";
import { copyText, resultPath } from "#app/lib/generations.ts";
import { hrefIn, type Locale } from "#common/locales.ts";
import { formatDate, formatNumber } from "#common/format.ts";
import type { DeliveryView } from "#server/modules/webhooks/list-deliveries.ts";
import type { WebhookSecretInfo, WebhookSecretView } from "#server/modules/webhooks/secret.ts";
import { REFLOW_TABLE, reflowColumns } from "#app/components/ui/reflow-table.ts";

export interface WebhooksState {
  secret: WebhookSecretInfo;
  deliveries: DeliveryView[];
}

const MASK = `whsec_${"•".repeat(24)}`;

/** The events a message may be (the server's list of webhook events). */
const EVENT_TYPES = `"generation.succeeded" | "generation.failed" | "generation.canceled"`;

/**
 * Receivers check messages with the reference library; the same three lines work in any Node.js framework. The code
 * stays as it is; its comments are in the reader's language.
 */
const verifyExample = (comments: { input: string; type: string }) =>
  [
    `import { Webhook } from "standardwebhooks";`,
    ``,
    `// ${comments.input}`,
    `const message = new Webhook(process.env.ATELIER_WEBHOOK_SECRET).verify(rawBody, headers);`,
    `// ${comments.type}`,
  ].join("\n");

function deliveryStatus(d: DeliveryView): { key: string; color: string } {
  if (d.status === "delivered") return { key: "delivered", color: "green" };
  // Refused by the address policy: ended at its first attempt, for the user to change the URL.
  if (d.status === "failed" && d.lastError === "refused") return { key: "refused", color: "magenta" };
  if (d.status === "failed") return { key: "failed", color: "red" };
  return d.attempts > 0 ? { key: "retrying", color: "orange" } : { key: "sending", color: "blue" };
}

/**
 * The webhooks part of the API page: the signing secret (hidden until asked for, copied, rotated) and the latest
 * messages with where each one stands.
 */
export function WebhooksPanel({ initial, locale }: { initial: WebhooksState; locale: Locale }) {
  const { t } = useTranslation("api");
  const toast = useToast();
  const { pathname } = useLocation();
  const [info, setInfo] = useState(initial.secret);
  const [deliveries, setDeliveries] = useState(initial.deliveries);
  const [secret, setSecret] = useState<string | null>(null);
  const [shown, setShown] = useState(false);
  const [busy, setBusy] = useState<"reveal" | "copy" | "rotate" | "refresh" | null>(null);

  /** The secret, fetched the first time it is needed. */
  const loadSecret = async (): Promise<string | null> => {
    if (secret) return secret;
    try {
      const { secret: view } = await api<{ secret: WebhookSecretView }>("/webhooks/secret");
      setSecret(view.secret);
      return view.secret;
    } catch {
      toast.error(t("webhooks.secret.fetchFailed"));
      return null;
    }
  };

  const toggle = async () => {
    if (shown) return setShown(false);
    setBusy("reveal");
    if (await loadSecret()) setShown(true);
    setBusy(null);
  };

  const copy = async () => {
    setBusy("copy");
    const value = await loadSecret();
    setBusy(null);
    if (!value) return;
    if (await copyText(value)) toast.success(t("common:msg.copySuccess"));
    else toast.error(t("common:msg.copyFailed"));
  };

  const rotate = async () => {
    setBusy("rotate");
    try {
      const { secret: view } = await api<{ secret: WebhookSecretView }>("/webhooks/secret", { method: "POST" });
      setSecret(view.secret);
      setInfo({ createdAt: view.createdAt, previousExpiresAt: view.previousExpiresAt });
      setShown(true);
      toast.success(t("webhooks.secret.rotated"));
    } catch {
      toast.error(t("webhooks.secret.rotateFailed"));
    } finally {
      setBusy(null);
    }
  };

  const refresh = async () => {
    setBusy("refresh");
    try {
      const next = await api<WebhooksState>("/webhooks");
      setDeliveries(next.deliveries);
      setInfo(next.secret);
    } catch {
      toast.error(t("webhooks.deliveries.fetchFailed"));
    } finally {
      setBusy(null);
    }
  };

  return (
    <section className="api-webhooks" aria-labelledby="webhooks-heading">
      <Typography.Title level={2} id="webhooks-heading" className="dash-section-title">
        {t("webhooks.title")}
      </Typography.Title>
      <Typography.Paragraph>
        {t("webhooks.intro")} <Link to={hrefIn(pathname, "/docs/webhooks")}>{t("webhooks.docs")}</Link>
      </Typography.Paragraph>

      <label className="webhook-secret-label" htmlFor="webhook-secret">
        {t("webhooks.secret.label")}
      </label>
      <div className="webhook-secret">
        <Input
          id="webhook-secret"
          readOnly
          value={shown && secret ? secret : MASK}
          data-testid="webhook-secret"
          className="webhook-secret-value"
        />
        <Space wrap>
          <Button
            icon={shown ? <EyeInvisibleOutlined /> : <EyeOutlined />}
            loading={busy === "reveal"}
            onClick={() => void toggle()}
          >
            {shown ? t("webhooks.secret.hide") : t("webhooks.secret.show")}
          </Button>
          <Button icon={<CopyOutlined />} loading={busy === "copy"} onClick={() => void copy()}>
            {t("webhooks.secret.copy")}
          </Button>
          <Popconfirm
            title={t("webhooks.secret.rotateTitle")}
            description={<div className="webhook-rotate-body">{t("webhooks.secret.rotateBody")}</div>}
            okText={t("webhooks.secret.rotateConfirm")}
            cancelText={t("webhooks.secret.rotateCancel")}
            onConfirm={rotate}
          >
            <Button icon={<SyncOutlined />} loading={busy === "rotate"}>
              {t("webhooks.secret.rotate")}
            </Button>
          </Popconfirm>
        </Space>
      </div>
      {info.previousExpiresAt && (
        <Typography.Paragraph type="secondary" className="webhook-previous" data-testid="webhook-previous">
          {t("webhooks.secret.previous", { date: formatDate(locale, info.previousExpiresAt) })}
        </Typography.Paragraph>
      )}

      <Typography.Title level={3} className="dash-subsection-title">
        {t("webhooks.verify.title")}
      </Typography.Title>
      <Typography.Paragraph>{t("webhooks.verify.body")}</Typography.Paragraph>
      <pre className="code-block" data-testid="webhook-verify">
        <code>
          {verifyExample({
            input: t("webhooks.verify.comments.input"),
            type: t("webhooks.verify.comments.type", { types: EVENT_TYPES }),
          })}
        </code>
      </pre>

      <div className="webhook-deliveries-heading">
        <Typography.Title level={3} className="dash-subsection-title">
          {t("webhooks.deliveries.title")}
        </Typography.Title>
        <Button icon={<ReloadOutlined />} loading={busy === "refresh"} onClick={() => void refresh()}>
          {t("webhooks.deliveries.refresh")}
        </Button>
      </div>
      <Table<DeliveryView>
        className={`webhook-deliveries ${REFLOW_TABLE}`}
        rowKey="id"
        dataSource={deliveries}
        pagination={false}
        scroll={{ x: 860 }}
        locale={{ emptyText: t("webhooks.deliveries.empty") }}
        columns={reflowColumns<DeliveryView>([
          {
            title: t("webhooks.deliveries.time"),
            dataIndex: "createdAt",
            render: (at: string) => <RelativeTime locale={locale} date={at} />,
          },
          {
            title: t("webhooks.deliveries.event"),
            dataIndex: "event",
            render: (event: DeliveryView["event"]) => t(`webhooks.event.${event.replace("generation.", "")}`),
          },
          {
            title: t("webhooks.deliveries.generation"),
            dataIndex: "generationId",
            render: (_: unknown, d) =>
              d.generationId && d.tool ? (
                <Link to={hrefIn(pathname, resultPath({ id: d.generationId, tool: d.tool }))}>
                  {t("webhooks.deliveries.open")}
                </Link>
              ) : (
                <Typography.Text type="secondary">{t("webhooks.deliveries.deleted")}</Typography.Text>
              ),
          },
          {
            title: t("webhooks.deliveries.receiver"),
            dataIndex: "url",
            render: (url: string) => (
              <Typography.Text className="webhook-url" ellipsis={{ tooltip: url }}>
                {url}
              </Typography.Text>
            ),
          },
          {
            title: t("webhooks.deliveries.status"),
            dataIndex: "status",
            render: (_: unknown, d) => {
              const s = deliveryStatus(d);
              return (
                <Tag color={s.color} data-testid="webhook-status">
                  {t(`webhooks.status.${s.key}`)}
                </Tag>
              );
            },
          },
          {
            title: t("webhooks.deliveries.attempts"),
            dataIndex: "attempts",
            align: "right",
            render: (n: number) => formatNumber(locale, n),
          },
          {
            title: t("webhooks.deliveries.response"),
            key: "response",
            render: (_: unknown, d) => {
              const parts = [
                d.lastStatusCode !== null ? t("webhooks.deliveries.http", { code: d.lastStatusCode }) : null,
                d.lastError ? t(`webhooks.reason.${d.lastError}`) : null,
              ].filter(Boolean);
              return parts.length ? parts.join(" · ") : "—";
            },
          },
        ])}
      />
    </section>
  );
}
