import { useState } from "react";
import { Alert, Button, Form, Input, Modal, Popconfirm, Space, Switch, Table, Tag, Typography } from "antd";
import { CopyOutlined, DeleteOutlined, KeyOutlined, PlusOutlined } from "#app/components/antd-icons.ts";
import { useTranslation } from "react-i18next";
import { Link, useLocation } from "react-router";
import type { Route } from "./+types/api";
import { pageMeta } from "#app/lib/page.server.ts";
import { seoMeta } from "#app/seo.ts";
import { requireViewer } from "#app/lib/auth.server.ts";
import { useToast } from "#app/components/feedback.ts";
import { usePageLocale } from "#app/components/studio/parts.tsx";
import { RelativeTime } from "#app/components/relative-time.tsx";
import { api, apiErrorCode } from "#app/lib/api.ts";
import { copyText } from "#app/lib/generations.ts";
import { listApiKeys, type ApiKeyView } from "#server/modules/api-keys/list-api-keys.ts";
import { MAX_API_KEYS, MAX_API_KEY_NAME } from "#common/api-keys.ts";
import { formatDate, formatNumber } from "#common/format.ts";
import { hrefIn } from "#common/locales.ts";
import { WebhooksPanel } from "#app/components/api/webhooks-panel.tsx";
import { getWebhookSecretInfo } from "#server/modules/webhooks/secret.ts";
import { listWebhookDeliveries } from "#server/modules/webhooks/list-deliveries.ts";
import { REFLOW_TABLE, reflowColumns } from "#app/components/ui/reflow-table.ts";

export const meta = ({ loaderData }: Route.MetaArgs) => seoMeta(loaderData?.seo);

export async function loader({ context, request }: Route.LoaderArgs) {
  const { viewer, runtime, db } = requireViewer(context, request);
  const { site, i18n, seo } = pageMeta(context, request, ["dashboard", "api"], (t) => ({
    title: t("api:title"),
    noindex: true,
  }));
  const [keys, secret, deliveries] = await Promise.all([
    listApiKeys({ db, userId: viewer.id }),
    getWebhookSecretInfo({ db, userId: viewer.id }),
    listWebhookDeliveries({ db, userId: viewer.id }),
  ]);
  return {
    seo,
    i18n,
    keys,
    webhooks: { secret, deliveries },
    origin: new URL(site.url).origin,
    limitPerMinute: runtime.env.API_RATE_LIMIT_PER_MINUTE,
  };
}

/** The first request a developer makes: one image from text with the offline model, ready to paste in a shell. */
function quickStart(origin: string, key: string) {
  return [
    `curl ${origin}/api/v1/images \\`,
    `  -H "Authorization: Bearer ${key}" \\`,
    `  -H "Content-Type: application/json" \\`,
    `  -d '{"model": "demo-image", "prompt": "A lighthouse at dusk, oil painting"}'`,
  ].join("\n");
}

export default function ApiKeys({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("api");
  const locale = usePageLocale();
  const toast = useToast();
  const { origin, limitPerMinute } = loaderData;
  const { pathname } = useLocation();
  const [keys, setKeys] = useState<ApiKeyView[]>(loaderData.keys);
  const [creating, setCreating] = useState(false);
  const [busy, setBusy] = useState<string | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const [lastSecret, setLastSecret] = useState<string | null>(null);
  const [form] = Form.useForm<{ name?: string }>();

  const reload = async () => {
    try {
      setKeys((await api<{ keys: ApiKeyView[] }>("/keys")).keys);
    } catch {
      toast.error(t("messages:msg.apiKeys.fetchFailed"));
    }
  };

  const create = async ({ name }: { name?: string }) => {
    setBusy("create");
    try {
      const created = await api<{ key: ApiKeyView; secret: string }>("/keys", {
        method: "POST",
        body: { name: name?.trim() || undefined },
        headers: { "X-Locale": locale },
      });
      setKeys((list) => [created.key, ...list]);
      setCreating(false);
      form.resetFields();
      setSecret(created.secret);
      setLastSecret(created.secret);
    } catch (error) {
      toast.error(
        apiErrorCode(error) === "api_key_limit"
          ? t("create.limit", { max: MAX_API_KEYS })
          : t("messages:msg.apiKeys.createFailed"),
      );
    } finally {
      setBusy(null);
    }
  };

  const copyKey = async (value: string) => {
    if (await copyText(value)) toast.success(t("messages:msg.apiKeys.copied"));
    else toast.error(t("messages:msg.apiKeys.copyFailed"));
  };

  const setStatus = async (key: ApiKeyView, active: boolean) => {
    setBusy(key.id);
    try {
      const { key: updated } = await api<{ key: ApiKeyView }>(`/keys/${key.id}`, {
        method: "PATCH",
        body: { status: active ? "active" : "inactive" },
      });
      setKeys((list) => list.map((k) => (k.id === updated.id ? updated : k)));
      toast.success(t(active ? "messages:msg.apiKeys.activated" : "messages:msg.apiKeys.deactivated"));
    } catch {
      toast.error(t("messages:msg.apiKeys.updateFailed"));
      void reload();
    } finally {
      setBusy(null);
    }
  };

  const remove = async (key: ApiKeyView) => {
    setBusy(key.id);
    try {
      await api(`/keys/${key.id}`, { method: "DELETE" });
      setKeys((list) => list.filter((k) => k.id !== key.id));
      toast.success(t("messages:msg.apiKeys.deleted"));
    } catch {
      toast.error(t("messages:msg.apiKeys.deleteFailed"));
    } finally {
      setBusy(null);
    }
  };

  const nameOf = (k: ApiKeyView) => k.name ?? t("unnamed");
  const full = keys.length >= MAX_API_KEYS;
  const example = quickStart(origin, lastSecret ?? t("quickStart.placeholder"));

  return (
    <div className="dash-page api-keys-page">
      <div className="dash-heading">
        <div>
          <Typography.Title level={1} className="dash-title">
            {t("title")}
          </Typography.Title>
          <Typography.Paragraph type="secondary">
            {t("intro")} <Link to={hrefIn(pathname, "/docs/api")}>{t("guide")}</Link>
            {" · "}
            <Link to={hrefIn(pathname, "/docs/api-reference")}>{t("reference")}</Link>
          </Typography.Paragraph>
        </div>
        <Button type="primary" icon={<PlusOutlined />} disabled={full} onClick={() => setCreating(true)}>
          {t("create.button")}
        </Button>
      </div>
      {full && <Alert type="info" showIcon title={t("create.limit", { max: MAX_API_KEYS })} />}

      <h2 className="sr-only">{t("table.caption")}</h2>
      <Table<ApiKeyView>
        className={`api-keys-table ${REFLOW_TABLE}`}
        rowKey="id"
        dataSource={keys}
        pagination={false}
        scroll={{ x: 760 }}
        locale={{ emptyText: t("table.empty") }}
        columns={reflowColumns<ApiKeyView>([
          {
            title: t("table.name"),
            dataIndex: "name",
            render: (_: unknown, k) => (
              <Typography.Text type={k.name ? undefined : "secondary"} data-testid="api-key-name">
                {nameOf(k)}
              </Typography.Text>
            ),
          },
          {
            title: t("table.key"),
            dataIndex: "prefix",
            render: (prefix: string) => (
              <Typography.Text code className="api-key-prefix">
                {`${prefix}${"•".repeat(8)}`}
              </Typography.Text>
            ),
          },
          {
            title: t("table.status"),
            dataIndex: "status",
            render: (status: ApiKeyView["status"]) => (
              <Tag color={status === "active" ? "green" : "default"} data-testid="api-key-status">
                {t(`status.${status}`)}
              </Tag>
            ),
          },
          {
            title: t("table.created"),
            dataIndex: "createdAt",
            render: (at: string) => formatDate(locale, at),
          },
          {
            title: t("table.lastUsed"),
            dataIndex: "lastUsedAt",
            render: (at: string | null) => (at ? <RelativeTime locale={locale} date={at} /> : t("table.never")),
          },
          {
            title: t("table.requests"),
            dataIndex: "requestCount",
            align: "right",
            render: (n: number) => formatNumber(locale, n),
          },
          {
            title: t("table.actions"),
            key: "actions",
            render: (_: unknown, k) => (
              <Space>
                <Switch
                  size="small"
                  checked={k.status === "active"}
                  loading={busy === k.id}
                  aria-label={t("toggle", { name: nameOf(k) })}
                  onChange={(on) => void setStatus(k, on)}
                />
                <Popconfirm
                  title={t("delete.title")}
                  description={t("delete.body")}
                  okText={t("delete.confirm")}
                  cancelText={t("delete.cancel")}
                  okButtonProps={{ danger: true }}
                  onConfirm={() => remove(k)}
                >
                  <Button
                    size="small"
                    danger
                    type="text"
                    icon={<DeleteOutlined />}
                    aria-label={t("delete.label", { name: nameOf(k) })}
                  />
                </Popconfirm>
              </Space>
            ),
          },
        ])}
      />

      <section className="api-quick-start" aria-labelledby="quick-start-heading">
        <Typography.Title level={2} id="quick-start-heading" className="dash-section-title">
          {t("quickStart.title")}
        </Typography.Title>
        <Typography.Paragraph>
          {t("quickStart.body")} {lastSecret && t("quickStart.withNewKey")}
        </Typography.Paragraph>
        <pre className="code-block" data-testid="quick-start">
          <code>{example}</code>
        </pre>
        <Space wrap>
          <Button
            icon={<CopyOutlined />}
            onClick={async () =>
              (await copyText(example))
                ? toast.success(t("common:msg.copySuccess"))
                : toast.error(t("common:msg.copyFailed"))
            }
          >
            {t("quickStart.copy")}
          </Button>
          <Typography.Text type="secondary">{t("quickStart.limits", { limit: limitPerMinute })}</Typography.Text>
        </Space>
      </section>

      <WebhooksPanel initial={loaderData.webhooks} locale={locale} />

      <Modal
        open={creating}
        title={t("create.title")}
        okText={t("create.submit")}
        cancelText={t("create.cancel")}
        confirmLoading={busy === "create"}
        // The button submits the dialog's form itself (a native submit, like Enter in the field), so a click lands
        // even while the dialog is still opening.
        okButtonProps={{ htmlType: "submit", form: "api-key-create" }}
        onCancel={() => setCreating(false)}
        destroyOnHidden
      >
        <Form id="api-key-create" form={form} layout="vertical" onFinish={create} preserve={false}>
          <Form.Item
            name="name"
            label={t("create.name")}
            extra={t("create.nameHint")}
            rules={[{ max: MAX_API_KEY_NAME }]}
          >
            <Input maxLength={MAX_API_KEY_NAME} placeholder={t("create.namePlaceholder")} autoFocus />
          </Form.Item>
        </Form>
      </Modal>

      <Modal
        open={secret !== null}
        title={
          <Space>
            <KeyOutlined />
            {t("created.title")}
          </Space>
        }
        closable={false}
        maskClosable={false}
        destroyOnHidden
        footer={
          <Button type="primary" onClick={() => setSecret(null)}>
            {t("created.done")}
          </Button>
        }
      >
        <Alert type="warning" showIcon title={t("created.warning")} />
        <Space.Compact className="api-secret">
          <Input readOnly value={secret ?? ""} data-testid="api-key-secret" aria-label={t("created.title")} />
          <Button icon={<CopyOutlined />} onClick={() => secret && void copyKey(secret)}>
            {t("created.copy")}
          </Button>
        </Space.Compact>
      </Modal>
    </div>
  );
}
