import { Button, Card, Checkbox, Input, Radio, Typography, type TableColumnsType } from "antd";
import { MAX_EXPIRY_DAYS } from "#common/plans.ts";
import { useTranslation } from "react-i18next";
import { data, Form, Link, useLocation, useNavigation } from "react-router";
import type { Route } from "./+types/settings";
import { pageMeta } from "#app/lib/page.server.ts";
import { seoMeta } from "#app/seo.ts";
import { requireAdmin } from "#app/lib/auth.server.ts";
import { formOf } from "#app/lib/request.server.ts";
import { allRows, PagedTable } from "#app/components/billing/paged-table.tsx";
import { ResultNotice, type AdminResult } from "#app/components/admin/user-actions.tsx";
import { ChangeList } from "#app/components/admin/change-list.tsx";
import { listAdminActions } from "#server/modules/audit/list-admin-actions.ts";
import { c2paSignerOf } from "#server/media/c2pa.ts";
import { updateSettings } from "#server/modules/settings/update-settings.ts";
import { settingsSchema, type Settings } from "#server/modules/settings/schema.ts";
import { LABEL_POSITIONS, LABEL_SCOPES } from "#common/label.ts";
import type { AdminAction } from "#server/db/schema/index.ts";
import { decimalAmount, formatDate, minorAmount } from "#common/format.ts";
import { hrefIn, LOCALES, LOCALE_NAMES, type Locale } from "#common/locales.ts";
import { BLOCK_LIST_MAX_CHARS, BLOCK_LIST_SCOPES, SAFETY_LEVELS } from "#common/safety.ts";
import { invalidLine } from "#server/modules/safety/block-list.ts";
import { moderationConnection } from "#server/providers/openai/moderation.ts";

const HISTORY = 10;
/** Rows for new packs below the existing ones. */
const BLANK_PACKS = 1;

export const meta = ({ loaderData }: Route.MetaArgs) => seoMeta(loaderData?.seo);

export async function loader({ context, request }: Route.LoaderArgs) {
  const { db, runtime } = requireAdmin(context, request);
  const { locale, i18n, seo } = pageMeta(context, request, ["admin"], (t) => ({
    title: t("admin:settings.title"),
    noindex: true,
  }));
  // Read again here: a change saved by another process shows at once on this page.
  await runtime.settings.refresh();
  const history = await listAdminActions({ db, search: { area: "settings" }, page: 1, pageSize: HISTORY });
  const moderation = moderationConnection(runtime.models.connections());
  const signer = c2paSignerOf(runtime.env);
  return {
    seo,
    i18n,
    locale,
    settings: runtime.settings.current(),
    history: history.rows,
    moderation: moderation?.name ?? null,
    c2pa: signer ? { subject: signer.subject, issuer: signer.issuer, validTo: signer.validTo.toISOString() } : null,
  };
}

type Field = { field: string; row?: number };

/** The packs as the form sent them (rows left empty or marked for removal are dropped), or the field at fault. */
function packsOf(form: FormData): Settings["packs"] | Field {
  const packs: Settings["packs"] = [];
  for (let row = 0; form.has(`pack.${row}.id`); row++) {
    const get = (name: string) => String(form.get(`pack.${row}.${name}`) ?? "").trim();
    if (form.get(`pack.${row}.remove`) === "on") continue;
    if (!get("id") && !get("credits") && !get("price")) continue;
    const currency = get("currency").toLowerCase() || "usd";
    const amount = minorAmount(get("price"), currency);
    const credits = Number(get("credits"));
    const pack = settingsSchema.shape.packs.element.safeParse({
      id: get("id"),
      credits,
      amount: amount ?? -1,
      currency,
      ...(form.get(`pack.${row}.popular`) === "on" ? { popular: true } : {}),
    });
    if (!pack.success) return { field: String(pack.error.issues[0]?.path[0] ?? "id"), row };
    packs.push(pack.data);
  }
  const all = settingsSchema.shape.packs.safeParse(packs);
  return all.success ? all.data : { field: packs.length === 0 ? "none" : "duplicate" };
}

export async function action({ context, request }: Route.ActionArgs) {
  const { db, runtime, actor } = requireAdmin(context, request);
  const form = await formOf(request);
  const intent = String(form.get("intent") ?? "");
  const save = async <S extends keyof Settings>(section: S, value: Settings[S]) => {
    const changed = await updateSettings({ db, defaults: runtime.settings.defaults, section, value, actor });
    await runtime.settings.refresh();
    return { intent, ok: changed ? "settings.saved" : "settings.unchanged" } satisfies AdminResult;
  };
  const refuse = (error: string, field?: string, values?: Record<string, string | number>) =>
    data<AdminResult>({ intent, error, field, values }, { status: 400 });
  switch (intent) {
    case "bonus": {
      const bonus = settingsSchema.shape.signupBonusCredits.safeParse(Number(form.get("bonus") || Number.NaN));
      if (!bonus.success) return refuse("settings.errors.bonus", "bonus");
      return save("signupBonusCredits", bonus.data);
    }
    case "packs": {
      const packs = packsOf(form);
      if (!Array.isArray(packs)) {
        return refuse(`settings.errors.packs.${packs.field}`, packs.row === undefined ? "packs" : `pack.${packs.row}`, {
          row: (packs.row ?? 0) + 1,
        });
      }
      return save("packs", packs);
    }
    case "announcement": {
      const text = Object.fromEntries(
        LOCALES.map((l) => [l, String(form.get(`text.${l}`) ?? "").trim()]).filter(([, v]) => v),
      );
      const announcement = settingsSchema.shape.announcement.safeParse({
        enabled: form.get("enabled") === "on",
        tone: form.get("tone") === "warning" ? "warning" : "info",
        text,
      });
      if (!announcement.success) return refuse("settings.errors.announcementLength", "announcement");
      if (announcement.data.enabled && !announcement.data.text.en)
        return refuse("settings.errors.announcementEnglish", "text.en");
      return save("announcement", announcement.data);
    }
    case "maintenance":
      return save("maintenance", { enabled: form.get("enabled") === "on" });
    case "explore":
      return save("explore", { enabled: form.get("enabled") === "on" });
    case "billing": {
      const days = (name: string) => Number(form.get(name) || "0");
      const billing = settingsSchema.shape.billing.safeParse({
        graceDays: Number(form.get("graceDays") ?? ""),
        packExpiryDays: days("packExpiryDays"),
        bonusExpiryDays: days("bonusExpiryDays"),
        stripeTax: form.get("stripeTax") === "on",
        publicResults: form.get("publicResults") === "on",
      });
      if (!billing.success) {
        const field = String(billing.error.issues[0]?.path[0] ?? "graceDays");
        return refuse(field === "graceDays" ? "settings.errors.graceDays" : "settings.errors.expiryDays", field);
      }
      return save("billing", billing.data);
    }
    case "safety": {
      const blockList: Record<string, string> = Object.fromEntries(
        BLOCK_LIST_SCOPES.map((scope) => [scope, String(form.get(`block.${scope}`) ?? "").trim()]).filter(([, v]) => v),
      );
      for (const [scope, list] of Object.entries(blockList)) {
        const bad = invalidLine(list);
        if (bad) return refuse("safety.errors.pattern", `block.${scope}`, { line: bad.line, text: bad.text });
      }
      const safety = settingsSchema.shape.safety.safeParse({ level: form.get("level"), blockList });
      if (!safety.success) return refuse("safety.errors.tooLong", "safety");
      return save("safety", safety.data);
    }
    case "label": {
      const label = settingsSchema.shape.label.safeParse({
        enabled: form.get("enabled") === "on",
        text: String(form.get("text") ?? ""),
        position: form.get("position"),
        scope: form.get("scope"),
      });
      if (!label.success) return refuse("settings.errors.label", "label.text");
      return save("label", label.data);
    }
    default:
      throw data({ messageKey: "error.400" }, { status: 400 });
  }
}

export default function AdminSettings({ loaderData, actionData }: Route.ComponentProps) {
  const { t } = useTranslation("admin");
  const { pathname } = useLocation();
  const locale = loaderData.locale as Locale;
  const { settings, history, c2pa } = loaderData;
  const result = actionData as AdminResult | undefined;
  const navigation = useNavigation();
  const busy = (intent: string) => navigation.state === "submitting" && navigation.formData?.get("intent") === intent;
  const invalid = (field: string) => (result?.error && result.field === field ? ("error" as const) : undefined);
  const notice = (intent: string) => (result?.intent === intent ? <ResultNotice result={result} /> : null);
  const rows = [...settings.packs, ...Array.from({ length: BLANK_PACKS }, () => null)];
  const historyColumns: TableColumnsType<AdminAction> = [
    { title: t("audit.columns.when"), dataIndex: "createdAt", render: (v: string) => formatDate(locale, v) },
    { title: t("audit.columns.who"), dataIndex: "actor" },
    {
      title: t("audit.columns.what"),
      dataIndex: "action",
      render: (action: string) => t(`audit.actions.${action}`, { defaultValue: action }),
    },
    {
      title: t("audit.columns.change"),
      key: "change",
      render: (_: unknown, row) => <ChangeList before={row.before} after={row.after} locale={locale} />,
    },
  ];
  return (
    <div className="page-wide admin-settings">
      <Typography.Title level={1} className="page-title">
        {t("settings.title")}
      </Typography.Title>
      <Typography.Paragraph type="secondary">{t("settings.subtitle")}</Typography.Paragraph>

      <Card title={t("settings.bonus.title")}>
        {notice("bonus")}
        <Form method="post" className="admin-inline-form" key={`bonus-${settings.signupBonusCredits}`}>
          <label className="admin-filter">
            <span>{t("settings.bonus.label")}</span>
            <Input
              name="bonus"
              type="number"
              min={0}
              max={1_000_000}
              step={1}
              required
              defaultValue={settings.signupBonusCredits}
              status={invalid("bonus")}
            />
          </label>
          <Button htmlType="submit" name="intent" value="bonus" type="primary" loading={busy("bonus")}>
            {t("settings.save")}
          </Button>
        </Form>
        <Typography.Paragraph type="secondary" className="admin-hint">
          {t("settings.bonus.hint")}
        </Typography.Paragraph>
      </Card>

      <Card title={t("settings.packs.title")}>
        {notice("packs")}
        <Form method="post" key={`packs-${JSON.stringify(settings.packs)}`}>
          <div className="admin-packs" role="table" aria-label={t("settings.packs.title")}>
            <div className="admin-packs-row admin-packs-head" role="row">
              {["id", "credits", "price", "currency"].map((c) => (
                <span key={c} role="columnheader">
                  {t(`settings.packs.${c}`)}
                </span>
              ))}
              <span />
              <span />
            </div>
            {rows.map((pack, row) => (
              <div
                className={`admin-packs-row${invalid(`pack.${row}`) ? " admin-packs-invalid" : ""}`}
                role="row"
                key={pack?.id ?? `new-${row}`}
              >
                <Input
                  name={`pack.${row}.id`}
                  defaultValue={pack?.id}
                  aria-label={t("settings.packs.id")}
                  placeholder={pack ? undefined : t("settings.packs.newPlaceholder")}
                  maxLength={32}
                />
                <Input
                  name={`pack.${row}.credits`}
                  type="number"
                  min={1}
                  step={1}
                  defaultValue={pack?.credits}
                  aria-label={t("settings.packs.credits")}
                  placeholder={t("settings.packs.credits")}
                />
                <Input
                  name={`pack.${row}.price`}
                  inputMode="decimal"
                  defaultValue={pack ? decimalAmount(pack.amount, pack.currency) : undefined}
                  aria-label={t("settings.packs.price")}
                  placeholder={t("settings.packs.price")}
                />
                <Input
                  name={`pack.${row}.currency`}
                  defaultValue={pack?.currency ?? settings.packs[0]?.currency ?? "usd"}
                  maxLength={3}
                  aria-label={t("settings.packs.currency")}
                  placeholder={t("settings.packs.currency")}
                />
                <Checkbox name={`pack.${row}.popular`} defaultChecked={pack?.popular}>
                  {t("settings.packs.popular")}
                </Checkbox>
                {pack ? <Checkbox name={`pack.${row}.remove`}>{t("settings.packs.remove")}</Checkbox> : <span />}
              </div>
            ))}
          </div>
          <Button htmlType="submit" name="intent" value="packs" type="primary" loading={busy("packs")}>
            {t("settings.save")}
          </Button>
        </Form>
        <Typography.Paragraph type="secondary" className="admin-hint">
          {t("settings.packs.hint")}
        </Typography.Paragraph>
      </Card>

      <Card title={t("settings.announcement.title")}>
        {notice("announcement")}
        <Form
          method="post"
          key={`announcement-${JSON.stringify(settings.announcement)}`}
          className="admin-announcement"
        >
          <Checkbox name="enabled" defaultChecked={settings.announcement.enabled}>
            {t("settings.announcement.enabled")}
          </Checkbox>
          <Radio.Group name="tone" defaultValue={settings.announcement.tone}>
            <Radio value="info">{t("settings.announcement.tones.info")}</Radio>
            <Radio value="warning">{t("settings.announcement.tones.warning")}</Radio>
          </Radio.Group>
          <div className="admin-locale-texts">
            {LOCALES.map((l) => (
              <label key={l} className="admin-filter">
                <span lang={l}>{LOCALE_NAMES[l]}</span>
                <Input.TextArea
                  name={`text.${l}`}
                  lang={l}
                  rows={2}
                  maxLength={500}
                  defaultValue={settings.announcement.text[l]}
                  status={invalid(`text.${l}`)}
                />
              </label>
            ))}
          </div>
          <Button htmlType="submit" name="intent" value="announcement" type="primary" loading={busy("announcement")}>
            {t("settings.save")}
          </Button>
        </Form>
        <Typography.Paragraph type="secondary" className="admin-hint">
          {t("settings.announcement.hint")}
        </Typography.Paragraph>
      </Card>

      <Card title={t("settings.billing.title")}>
        {notice("billing")}
        <Form
          method="post"
          className="admin-inline-form"
          key={`billing-${settings.billing.graceDays}-${settings.billing.packExpiryDays}-${settings.billing.bonusExpiryDays}-${settings.billing.stripeTax}-${settings.billing.publicResults}`}
        >
          <label className="admin-filter">
            <span>{t("settings.billing.graceDays")}</span>
            <Input
              name="graceDays"
              type="number"
              min={0}
              max={60}
              step={1}
              required
              defaultValue={settings.billing.graceDays}
              status={invalid("graceDays")}
            />
          </label>
          {(["packExpiryDays", "bonusExpiryDays"] as const).map((name) => (
            <label className="admin-filter" key={name}>
              <span>{t(`settings.billing.${name}`)}</span>
              <Input
                name={name}
                type="number"
                min={0}
                max={MAX_EXPIRY_DAYS}
                step={1}
                defaultValue={settings.billing[name]}
                status={invalid(name)}
              />
            </label>
          ))}
          {(["stripeTax", "publicResults"] as const).map((name) => (
            <Checkbox key={name} name={name} defaultChecked={settings.billing[name]}>
              {t(`settings.billing.${name}`)}
            </Checkbox>
          ))}
          <Button htmlType="submit" name="intent" value="billing" type="primary" loading={busy("billing")}>
            {t("settings.save")}
          </Button>
        </Form>
        {(["hint", "expiryHint", "stripeTaxHint", "publicResultsHint"] as const).map((hint) => (
          <Typography.Paragraph key={hint} type="secondary" className="admin-hint">
            {t(`settings.billing.${hint}`)}
          </Typography.Paragraph>
        ))}
      </Card>

      <Card title={t("settings.maintenance.title")}>
        {notice("maintenance")}
        <Form method="post" className="admin-inline-form">
          <input type="hidden" name="enabled" value={settings.maintenance.enabled ? "off" : "on"} />
          <Typography.Text>
            {t(settings.maintenance.enabled ? "settings.maintenance.on" : "settings.maintenance.off")}
          </Typography.Text>
          <Button
            htmlType="submit"
            name="intent"
            value="maintenance"
            danger={!settings.maintenance.enabled}
            loading={busy("maintenance")}
          >
            {t(settings.maintenance.enabled ? "settings.maintenance.stop" : "settings.maintenance.start")}
          </Button>
        </Form>
        <Typography.Paragraph type="secondary" className="admin-hint">
          {t("settings.maintenance.hint")}
        </Typography.Paragraph>
      </Card>

      <Card title={t("settings.explore.title")}>
        {notice("explore")}
        <Form method="post" className="admin-inline-form">
          <input type="hidden" name="enabled" value={settings.explore.enabled ? "off" : "on"} />
          <Typography.Text>
            {t(settings.explore.enabled ? "settings.explore.on" : "settings.explore.off")}
          </Typography.Text>
          <Button htmlType="submit" name="intent" value="explore" loading={busy("explore")}>
            {t(settings.explore.enabled ? "settings.explore.close" : "settings.explore.open")}
          </Button>
        </Form>
        <Typography.Paragraph type="secondary" className="admin-hint">
          {t("settings.explore.hint")}
        </Typography.Paragraph>
      </Card>

      <Card title={t("safety.title")}>
        {notice("safety")}
        <Form method="post" key={`safety-${JSON.stringify(settings.safety)}`} className="admin-safety">
          <fieldset className="admin-safety-levels">
            <legend>{t("safety.level")}</legend>
            <Radio.Group name="level" defaultValue={settings.safety.level}>
              {SAFETY_LEVELS.map((level) => (
                <Radio key={level} value={level}>
                  <strong>{t(`safety.levels.${level}`)}</strong>
                  <span className="admin-hint-inline">{t(`safety.levelHints.${level}`)}</span>
                </Radio>
              ))}
            </Radio.Group>
          </fieldset>
          <Typography.Paragraph type="secondary" className="admin-hint">
            {loaderData.moderation
              ? t("safety.moderationOn", { connection: loaderData.moderation })
              : t("safety.moderationOff")}
          </Typography.Paragraph>
          <Typography.Title level={3} className="admin-subtitle">
            {t("safety.blockList")}
          </Typography.Title>
          <Typography.Paragraph type="secondary" className="admin-hint">
            {t("safety.blockListHint")}
          </Typography.Paragraph>
          <div className="admin-locale-texts">
            {BLOCK_LIST_SCOPES.map((scope) => (
              <label key={scope} className="admin-filter">
                <span lang={scope === "all" ? undefined : scope}>
                  {scope === "all" ? t("safety.allLanguages") : LOCALE_NAMES[scope]}
                </span>
                <Input.TextArea
                  name={`block.${scope}`}
                  lang={scope === "all" ? undefined : scope}
                  rows={scope === "all" ? 4 : 2}
                  maxLength={BLOCK_LIST_MAX_CHARS}
                  defaultValue={settings.safety.blockList[scope]}
                  status={invalid(`block.${scope}`)}
                  spellCheck={false}
                />
              </label>
            ))}
          </div>
          <Button htmlType="submit" name="intent" value="safety" type="primary" loading={busy("safety")}>
            {t("settings.save")}
          </Button>
        </Form>
      </Card>

      <Card title={t("settings.label.title")}>
        {notice("label")}
        <Form method="post" key={`label-${JSON.stringify(settings.label)}`} className="admin-announcement">
          <Checkbox name="enabled" defaultChecked={settings.label.enabled}>
            {t("settings.label.enabled")}
          </Checkbox>
          <label className="admin-filter">
            <span>{t("settings.label.text")}</span>
            <Input
              name="text"
              maxLength={40}
              defaultValue={settings.label.text}
              placeholder={t("settings.label.placeholder")}
              status={invalid("label.text")}
            />
          </label>
          <Radio.Group name="position" defaultValue={settings.label.position}>
            {LABEL_POSITIONS.map((p) => (
              <Radio key={p} value={p}>
                {t(`settings.label.positions.${p}`)}
              </Radio>
            ))}
          </Radio.Group>
          <Radio.Group name="scope" defaultValue={settings.label.scope}>
            {LABEL_SCOPES.map((s) => (
              <Radio key={s} value={s}>
                {t(`settings.label.scopes.${s}`)}
              </Radio>
            ))}
          </Radio.Group>
          <Button htmlType="submit" name="intent" value="label" type="primary" loading={busy("label")}>
            {t("settings.save")}
          </Button>
        </Form>
        <Typography.Paragraph type="secondary" className="admin-hint">
          {t("settings.label.hint")}
        </Typography.Paragraph>
      </Card>

      <Card title={t("settings.provenance.title")} className="admin-provenance" data-c2pa={c2pa ? "on" : "off"}>
        <Typography.Paragraph>
          {c2pa
            ? t("settings.provenance.signed", {
                signer: c2pa.subject,
                issuer: c2pa.issuer,
                date: formatDate(locale, c2pa.validTo, { dateOnly: true }),
              })
            : t("settings.provenance.xmpOnly")}
        </Typography.Paragraph>
        <Typography.Paragraph type="secondary" className="admin-hint">
          {t(c2pa ? "settings.provenance.signedHint" : "settings.provenance.xmpOnlyHint")}{" "}
          <Link to={hrefIn(pathname, "/docs/provenance")}>{t("settings.provenance.docs")}</Link>
        </Typography.Paragraph>
      </Card>

      <Typography.Title level={2} className="section-title">
        {t("settings.history")}
      </Typography.Title>
      <PagedTable paged={allRows(history)} param="history" columns={historyColumns} empty={t("settings.noHistory")} />
      <p>
        <Link to={hrefIn(pathname, "/user/admin/audit?area=settings")}>{t("settings.allHistory")}</Link>
      </p>
    </div>
  );
}
