import { Button, Card, Checkbox, Input, Tag, Typography, type TableColumnsType } from "antd";
import { useTranslation } from "react-i18next";
import { data, Form, Link, useLocation, useNavigation } from "react-router";
import type { Route } from "./+types/connections";
import { pageMeta } from "#app/lib/page.server.ts";
import { seoMeta } from "#app/seo.ts";
import { requireAdmin } from "#app/lib/auth.server.ts";
import { formOf } from "#app/lib/request.server.ts";
import {
  lineOfObject,
  refusalResult,
  settingFieldsOf,
  settingsOfForm,
  type SettingField,
} from "#app/lib/catalog-admin.server.ts";
import { allRows, PagedTable } from "#app/components/billing/paged-table.tsx";
import { ResultNotice, type AdminResult } from "#app/components/admin/user-actions.tsx";
import { RowAction } from "#app/components/admin/row-action.tsx";
import {
  addConnection,
  changeConnection,
  recordConnectionCheck,
  removeConnection,
} from "#server/modules/catalog/edit-connections.ts";
import { checkConnection, isProviderId, providerDefinition, providers } from "#server/providers/registry.ts";
import { formatRelative } from "#common/format.ts";
import { hrefIn, type Locale } from "#common/locales.ts";

export const meta = ({ loaderData }: Route.MetaArgs) => seoMeta(loaderData?.seo);

type ConnectionState = "serves" | "disabled" | "incomplete" | "notConfigured" | "unreadable";

export async function loader({ context, request }: Route.LoaderArgs) {
  const { runtime } = requireAdmin(context, request);
  const { locale, i18n, seo } = pageMeta(context, request, ["admin"], (t) => ({
    title: t("admin:connections.title"),
    noindex: true,
  }));
  await runtime.models.refresh();
  const fieldsOf = Object.fromEntries(providers.map((p) => [p.id, settingFieldsOf(p.id)]));
  // What the browser may see of a connection: never a secret, only its last four characters.
  const connections = runtime.models.connections().map((c) => {
    const fields = fieldsOf[c.provider] ?? [];
    const plain = Object.fromEntries(
      fields
        .filter((f) => f.type !== "secret" && f.type !== "secretMap")
        .map((f) => {
          const value = c.settings?.[f.key] ?? null;
          // A list of objects (a pool's servers) as its lines.
          return [
            f.key,
            f.type === "objects" && Array.isArray(value)
              ? value.map((o) => lineOfObject(f.properties ?? [], o as Record<string, unknown>))
              : value,
          ] as const;
        })
        .filter(([, v]) => v !== null && v !== undefined),
    ) as Record<string, string | number | boolean | string[]>;
    // The lines of its lists of objects, shown in the list (a pool's servers).
    const lists = fields
      .filter((f) => f.type === "objects")
      .flatMap((f) => (plain[f.key] as string[] | undefined) ?? []);
    const state: ConnectionState =
      c.problem === "unreadable"
        ? "unreadable"
        : !c.enabled
          ? "disabled"
          : c.problem === "unconfigured"
            ? // The environment's connection of a provider whose variables are not set: nothing to complete here.
              c.source === "builtin"
              ? "notConfigured"
              : "incomplete"
            : "serves";
    return {
      id: c.id,
      name: c.name,
      provider: c.provider,
      source: c.source,
      enabled: c.enabled,
      state,
      // A provider without a check (the offline demo) has nothing to test.
      testable:
        isProviderId(c.provider) &&
        Boolean(providerDefinition(c.provider).check) &&
        state !== "unreadable" &&
        state !== "incomplete" &&
        state !== "notConfigured",
      hints: c.secretHints,
      allowPrivateNetwork: c.allowPrivateNetwork ?? false,
      plain,
      lists,
      check: c.check ?? null,
    };
  });
  const providerList = providers
    .filter((p) => !("local" in p && p.local))
    .map((p) => ({ id: p.id, capabilities: [...p.capabilities], fields: fieldsOf[p.id]! }));
  return { seo, i18n, locale, connections, providers: providerList, now: new Date().toISOString() };
}

export async function action({ context, request }: Route.ActionArgs) {
  const { db, runtime, actor } = requireAdmin(context, request);
  const form = await formOf(request);
  const intent = String(form.get("intent") ?? "");
  const id = String(form.get("connection") ?? "");
  const box = runtime.secrets;
  const done = async (ok: string, values: Record<string, string>) => {
    await runtime.models.refresh();
    return { intent, ok, values } satisfies AdminResult;
  };
  if (intent === "add") {
    const provider = String(form.get("provider") ?? "");
    if (!providers.some((p) => p.id === provider)) throw data({ messageKey: "error.400" }, { status: 400 });
    const name = String(form.get("name") ?? "").trim();
    if (name.length > 100)
      return data<AdminResult>({ intent, error: "connections.errors.name", field: "name" }, { status: 400 });
    try {
      const added = await addConnection({
        db,
        box,
        provider,
        input: {
          name: name || undefined,
          settings: dropNulls(settingsOfForm(provider, form)),
          allowPrivateNetwork: form.get("allowPrivateNetwork") === "on",
        },
        actor,
      });
      return await done("connections.added", { name: added.name, id: added.id });
    } catch (error) {
      return refusalResult(intent, error, { provider });
    }
  }
  const connection = runtime.models.connections().find((c) => c.id === id);
  if (!connection) throw data({ messageKey: "error.404" }, { status: 404 });
  const values = { name: connection.name };
  if (intent === "test") {
    if (!connection.settings)
      return data<AdminResult>({ intent, error: "connections.test.unreadable", values }, { status: 409 });
    const outcome = await checkConnection(connection.provider, connection.settings, AbortSignal.timeout(20_000));
    if (connection.source === "custom") {
      await recordConnectionCheck(db, id, {
        ok: outcome.ok,
        message: outcome.ok ? (outcome.detail ?? null) : `${outcome.code}: ${outcome.detail}`,
      });
      await runtime.models.refresh();
    }
    return outcome.ok
      ? ({ intent, ok: "connections.test.ok", values } satisfies AdminResult)
      : data<AdminResult>({ intent, error: `connections.test.${outcome.code}`, values }, { status: 409 });
  }
  // The environment's connections change with its variables only.
  if (connection.source !== "custom")
    return data<AdminResult>({ intent, error: "connections.errors.builtIn", values }, { status: 409 });
  try {
    switch (intent) {
      case "enable":
      case "disable": {
        await changeConnection({ db, box, id, input: { enabled: intent === "enable" }, actor });
        return await done(`connections.${intent}d`, values);
      }
      case "edit": {
        const name = String(form.get("name") ?? "").trim();
        if (name.length > 100)
          return data<AdminResult>({ intent, error: "connections.errors.name", field: "name" }, { status: 400 });
        const changed = await changeConnection({
          db,
          box,
          id,
          input: {
            name: name || undefined,
            settings: settingsOfForm(connection.provider, form),
            allowPrivateNetwork: form.get("allowPrivateNetwork") === "on",
          },
          actor,
        });
        return await done(changed ? "connections.saved" : "settings.unchanged", { name: name || connection.name });
      }
      case "remove": {
        await removeConnection({ db, id, actor });
        return await done("connections.removed", values);
      }
      default:
        throw data({ messageKey: "error.400" }, { status: 400 });
    }
  } catch (error) {
    return refusalResult(intent, error, values);
  }
}

function dropNulls(settings: Record<string, unknown>) {
  return Object.fromEntries(Object.entries(settings).filter(([, v]) => v !== null));
}

type Row = Route.ComponentProps["loaderData"]["connections"][number];

const STATE_COLORS = {
  serves: "green",
  disabled: "default",
  incomplete: "orange",
  notConfigured: "default",
  unreadable: "red",
} as const;

export default function AdminConnections({ loaderData, actionData }: Route.ComponentProps) {
  const { t } = useTranslation("admin");
  const locale = loaderData.locale as Locale;
  const { connections, providers: providerList } = loaderData;
  const now = new Date(loaderData.now);
  const { pathname, search } = useLocation();
  const params = new URLSearchParams(search);
  const result = actionData as AdminResult | undefined;
  const navigation = useNavigation();
  const busy = (intent: string) => navigation.state === "submitting" && navigation.formData?.get("intent") === intent;
  // After a change the page shows the table again (the form that made it is closed).
  const settled = result?.ok !== undefined;
  const adding = settled ? null : (providerList.find((p) => p.id === params.get("add")) ?? null);
  const editing = settled
    ? null
    : (connections.find((c) => c.id === params.get("edit") && c.source === "custom") ?? null);
  const removing = settled
    ? null
    : (connections.find((c) => c.id === params.get("remove") && c.source === "custom") ?? null);
  const here = (query: string) => `${pathname}${query ? `?${query}` : ""}`;
  const invalid = (field: string) => (result?.field?.split(".")[0] === field ? ("error" as const) : undefined);

  const columns: TableColumnsType<Row> = [
    {
      title: t("connections.columns.name"),
      dataIndex: "name",
      render: (name: string, row) => (
        <span className="admin-stack" data-connection={row.id}>
          <strong>{name}</strong>
          <Typography.Text type="secondary" code>
            {row.id}
          </Typography.Text>
          {row.source === "builtin" && (
            <span>
              <Tag>{t("connections.environment")}</Tag>
            </span>
          )}
        </span>
      ),
    },
    {
      title: t("connections.columns.provider"),
      dataIndex: "provider",
      render: (provider: string, row) => (
        <span className="admin-stack">
          <span>{provider}</span>
          {row.lists.map((line) => (
            <Typography.Text key={line} type="secondary" code data-server={line.split(" ")[0]}>
              {line}
            </Typography.Text>
          ))}
        </span>
      ),
    },
    {
      title: t("connections.columns.state"),
      dataIndex: "state",
      render: (state: ConnectionState) => (
        <Tag color={STATE_COLORS[state]} data-state={state}>
          {t(`connections.states.${state}`)}
        </Tag>
      ),
    },
    {
      title: t("connections.columns.key"),
      key: "key",
      render: (_: unknown, row) => {
        const hints = Object.values(row.hints);
        return hints.length === 0 ? "—" : <span data-key-hint>{hints.map((h) => (h ? `…${h}` : "…")).join(" ")}</span>;
      },
    },
    {
      title: t("connections.columns.check"),
      key: "check",
      render: (_: unknown, row) =>
        !row.check ? (
          <Typography.Text type="secondary">{row.source === "custom" ? t("connections.never") : "—"}</Typography.Text>
        ) : (
          <span className="admin-stack" data-check={row.check.ok ? "ok" : "failed"}>
            <span>
              <Tag color={row.check.ok ? "success" : "error"}>
                {row.check.ok
                  ? t("connections.checkOk")
                  : t(`connections.test.${checkCode(row.check.message)}`, { name: row.name })}
              </Tag>
            </span>
            {checkDetail(row.check.message) && (
              <Typography.Text type="secondary" className="admin-check-detail" data-check-detail>
                {checkDetail(row.check.message)}
              </Typography.Text>
            )}
            <Typography.Text type="secondary">{formatRelative(locale, row.check.at, now)}</Typography.Text>
          </span>
        ),
    },
    {
      title: t("connections.columns.actions"),
      key: "actions",
      render: (_: unknown, row) => (
        <span className="admin-row-actions">
          {row.testable && (
            <RowAction field="connection" value={row.id} intent="test">
              {t("connections.testAction")}
            </RowAction>
          )}
          {row.source === "custom" && (
            <>
              <Button size="small" href={here(`edit=${row.id}`)}>
                {t("connections.edit")}
              </Button>
              {row.enabled ? (
                <RowAction field="connection" value={row.id} intent="disable">
                  {t("connections.disable")}
                </RowAction>
              ) : (
                <RowAction field="connection" value={row.id} intent="enable">
                  {t("connections.enable")}
                </RowAction>
              )}
              <Button size="small" danger href={here(`remove=${row.id}`)}>
                {t("connections.remove")}
              </Button>
            </>
          )}
        </span>
      ),
    },
  ];

  return (
    <div className="page-wide admin-wide">
      <Typography.Title level={1} className="page-title">
        {t("connections.title")}
      </Typography.Title>
      <Typography.Paragraph type="secondary">{t("connections.subtitle")}</Typography.Paragraph>
      <ResultNotice result={result} />
      {removing && (
        <Card title={t("connections.removeTitle", { name: removing.name })} className="admin-create-codes">
          <Typography.Paragraph>{t("connections.removeConfirm", { name: removing.name })}</Typography.Paragraph>
          <Form method="post" action={here("")} className="admin-codes-form">
            <input type="hidden" name="connection" value={removing.id} />
            <Button htmlType="submit" name="intent" value="remove" danger type="primary" loading={busy("remove")}>
              {t("connections.remove")}
            </Button>
            <Link to={here("")}>{t("connections.cancel")}</Link>
          </Form>
        </Card>
      )}
      {editing && (
        <Card title={t("connections.editTitle", { name: editing.name })} className="admin-create-codes">
          <Form method="post" className="admin-codes-form" autoComplete="off">
            <input type="hidden" name="connection" value={editing.id} />
            <label className="admin-filter admin-filter-grow">
              <span>{t("connections.fields.name")}</span>
              <Input name="name" maxLength={100} defaultValue={editing.name} status={invalid("name")} />
            </label>
            {(providerList.find((p) => p.id === editing.provider)?.fields ?? []).map((f) => (
              <SettingInput
                key={f.key}
                field={f}
                value={editing.plain[f.key]}
                hint={editing.hints[f.key]}
                hints={editing.hints}
                status={invalid(f.key)}
              />
            ))}
            {(providerList.find((p) => p.id === editing.provider)?.fields ?? []).some((f) => f.key === "baseURL") && (
              <PrivateNetworkBox checked={editing.allowPrivateNetwork} />
            )}
            <Button htmlType="submit" name="intent" value="edit" type="primary" loading={busy("edit")}>
              {t("connections.save")}
            </Button>
            <Link to={here("")}>{t("connections.cancel")}</Link>
          </Form>
          <Typography.Paragraph type="secondary" className="admin-hint">
            {t("connections.keepKeyHint")}
          </Typography.Paragraph>
        </Card>
      )}
      <Card title={t("connections.add")} className="admin-create-codes">
        <nav className="admin-provider-picks" aria-label={t("connections.pickProvider")}>
          <Typography.Text type="secondary">{t("connections.pickProvider")}</Typography.Text>
          {providerList.map((p) => (
            <Link
              key={p.id}
              to={hrefIn(pathname, `/user/admin/connections?add=${p.id}`)}
              className={adding?.id === p.id ? "admin-provider-pick active" : "admin-provider-pick"}
              aria-current={adding?.id === p.id ? "true" : undefined}
            >
              {p.id}
            </Link>
          ))}
        </nav>
        {adding && (
          <Form method="post" className="admin-codes-form" autoComplete="off" data-add={adding.id}>
            <input type="hidden" name="provider" value={adding.id} />
            <label className="admin-filter admin-filter-grow">
              <span>{t("connections.fields.name")}</span>
              <Input name="name" maxLength={100} placeholder={adding.id} status={invalid("name")} />
            </label>
            {adding.fields.map((f) => (
              <SettingInput key={f.key} field={f} status={invalid(f.key)} />
            ))}
            {adding.fields.some((f) => f.key === "baseURL") && <PrivateNetworkBox />}
            <Button htmlType="submit" name="intent" value="add" type="primary" loading={busy("add")}>
              {t("connections.addSubmit")}
            </Button>
          </Form>
        )}
      </Card>
      <PagedTable paged={allRows(connections)} param="page" columns={columns} empty={t("connections.empty")} />
      <Typography.Paragraph type="secondary" className="admin-hint">
        {t("connections.hint")}
      </Typography.Paragraph>
    </div>
  );
}

/** An example line of a list of objects: the first property bare (a URL, a name), the numbers as name=2. */
function lineExample(field: SettingField): string {
  const [bare, ...named] = field.properties ?? [];
  if (!bare) return "";
  const first = /url/i.test(bare.key) ? "http://gpu-a:8188" : bare.key;
  return [first, ...named.map((p) => `${p.key}=${p.type === "number" ? 2 : "…"}`)].join(" ");
}

/** The explicit allowance of a base URL on the operator's own network or on plain http. */
function PrivateNetworkBox({ checked = false }: { checked?: boolean }) {
  const { t } = useTranslation("admin");
  return (
    <Checkbox name="allowPrivateNetwork" defaultChecked={checked}>
      {t("connections.fields.allowPrivateNetwork")}
    </Checkbox>
  );
}

/**
 * What a recorded test's outcome says beyond its code: the provider's own words (each server of a pool, its GPU and
 * queue, or that it does not answer), each part on its own line.
 */
function checkDetail(message: string | null): string {
  if (!message) return "";
  const code = message.split(":")[0] ?? "";
  const detail = ["unauthorized", "unreachable", "refused", "invalid"].includes(code)
    ? message.slice(code.length + 1).trim()
    : message;
  return detail.replaceAll("; ", "\n");
}

/** The code of a recorded test's outcome ("unauthorized: …"), for its translated reason. */
function checkCode(message: string | null): string {
  const code = message?.split(":")[0] ?? "";
  return ["unauthorized", "unreachable", "refused", "invalid"].includes(code) ? code : "invalid";
}

/** One setting of a connection, as its provider's schema has it; a secret is never filled in. */
function SettingInput({
  field,
  value,
  hint,
  hints = {},
  status,
}: {
  field: SettingField;
  value?: string | number | boolean | string[];
  hint?: string;
  /** The kept secrets' hints, for a map of secrets (`<key> <name>`: its last four characters). */
  hints?: Record<string, string>;
  status?: "error";
}) {
  const { t, i18n } = useTranslation("admin");
  const key = `connections.fields.${field.key}`;
  const label = i18n.exists(`admin:${key}`) ? t(key) : field.key;
  const name = `setting.${field.key}`;
  if (field.type === "boolean")
    return (
      <Checkbox name={name} defaultChecked={value === true}>
        {label}
      </Checkbox>
    );
  const helpKey = `connections.fieldHints.${field.key}`;
  const help = i18n.exists(`admin:${helpKey}`) ? t(helpKey) : null;
  // A map of secrets' kept entries: their keys, each with its last four characters, never the values.
  const kept = Object.entries(hints)
    .filter(([name]) => name.startsWith(`${field.key} `))
    .map(
      ([name, last]) =>
        `${name.slice(field.key.length + 1)} ${t("connections.keptSecret", { hint: last ? `…${last}` : "" }).trim()}`,
    );
  return (
    <label
      className={
        field.type === "objects" || field.type === "secretMap"
          ? "admin-filter admin-filter-grow admin-setting-lines"
          : "admin-filter admin-filter-grow"
      }
      data-setting={field.key}
    >
      <span>{label}</span>
      {help && <Typography.Text type="secondary">{help}</Typography.Text>}
      {field.type === "secretMap" ? (
        <>
          <Input.TextArea
            name={name}
            rows={Math.max(2, kept.length)}
            autoComplete="off"
            spellCheck={false}
            placeholder="http://gpu-a:8188 Authorization: Bearer …"
            status={status}
          />
          {kept.length > 0 && (
            <span className="admin-stack" data-kept={field.key}>
              {kept.map((line) => (
                <Typography.Text key={line} type="secondary" code>
                  {line}
                </Typography.Text>
              ))}
            </span>
          )}
        </>
      ) : field.type === "objects" ? (
        <Input.TextArea
          name={name}
          rows={Math.max(3, Array.isArray(value) ? value.length + 1 : 0)}
          spellCheck={false}
          defaultValue={Array.isArray(value) ? value.join("\n") : ""}
          placeholder={lineExample(field)}
          status={status}
        />
      ) : field.type === "number" ? (
        <Input
          name={name}
          type="number"
          inputMode="numeric"
          defaultValue={typeof value === "number" ? String(value) : undefined}
          status={status}
        />
      ) : field.type === "secret" ? (
        <Input.Password
          name={name}
          autoComplete="new-password"
          placeholder={hint ? t("connections.keepKey", { hint }) : undefined}
          status={status}
        />
      ) : field.type === "list" ? (
        <Input.TextArea
          name={name}
          rows={2}
          defaultValue={Array.isArray(value) ? value.join("\n") : ""}
          placeholder={t("connections.listPlaceholder")}
          status={status}
        />
      ) : (
        <Input
          name={name}
          defaultValue={typeof value === "string" ? value : undefined}
          placeholder={field.key === "baseURL" ? "https://" : undefined}
          status={status}
        />
      )}
    </label>
  );
}
