import { Button, Card, Descriptions, Tag, Typography, type TableColumnsType } from "antd";
import { useTranslation } from "react-i18next";
import { data, Form, Link, useLocation } from "react-router";
import { z } from "zod";
import type { Route } from "./+types/user";
import { pageMeta } from "#app/lib/page.server.ts";
import { seoMeta } from "#app/seo.ts";
import { authAttemptOf, requireAdmin } from "#app/lib/auth.server.ts";
import { formOf, pathLocale } from "#app/lib/request.server.ts";
import { pageOf } from "#app/lib/paging.ts";
import { allRows, PagedTable } from "#app/components/billing/paged-table.tsx";
import { CreditHistoryTable } from "#app/components/billing/credit-history-table.tsx";
import { UserTags } from "#app/components/admin/user-tags.tsx";
import { ResultNotice, UserActions, type AdminResult } from "#app/components/admin/user-actions.tsx";
import { getUserRecord } from "#server/modules/users/get-user-record.ts";
import { listSessions } from "#server/modules/users/list-sessions.ts";
import { listSignInMethods } from "#server/modules/users/list-sign-in-methods.ts";
import { setBan } from "#server/modules/users/set-ban.ts";
import { setRole } from "#server/modules/users/set-role.ts";
import { resendVerificationAsAdmin } from "#server/modules/users/resend-verification-as-admin.ts";
import { listApiKeys, type ApiKeyView } from "#server/modules/api-keys/list-api-keys.ts";
import { setKeySafety } from "#server/modules/api-keys/set-key-safety.ts";
import { SAFETY_LEVELS, type SafetyLevel } from "#common/safety.ts";
import { listEntries } from "#server/modules/credits/list-entries.ts";
import { getBalance, MAX_CREDIT_AMOUNT } from "#server/modules/credits/ledger.ts";
import { adjustCredits } from "#server/modules/credits/adjust-credits.ts";
import { listOrders, type OrderView } from "#server/modules/payments/list-orders.ts";
import { listGenerations } from "#server/modules/generation/list-generations.ts";
import type { GenerationView } from "#server/modules/generation/get-generation.ts";
import { AppError } from "#server/errors.ts";
import { formatDate, formatMoney, formatNumber } from "#common/format.ts";
import { hrefIn, isLocale, LOCALE_NAMES, type Locale } from "#common/locales.ts";

const LEDGER_PAGE = 10;
const ORDERS_PAGE = 10;
const RECENT_GENERATIONS = 10;

export const meta = ({ loaderData }: Route.MetaArgs) => seoMeta(loaderData?.seo);

const notFound = () => data({ messageKey: "error.404" }, { status: 404 });

export async function loader({ context, request, params }: Route.LoaderArgs) {
  const { db, viewer } = requireAdmin(context, request);
  const userId = params.id;
  const search = new URL(request.url).searchParams;
  const ledgerPage = pageOf(search.get("history"));
  const ordersPage = pageOf(search.get("orders"));
  const record = await getUserRecord({ db, userId });
  if (!record) throw notFound();
  const [balance, ledger, orders, generations, keys, sessions, methods] = await Promise.all([
    getBalance({ db, userId }),
    listEntries({ db, userId, page: ledgerPage, pageSize: LEDGER_PAGE }),
    listOrders({ db, userId, page: ordersPage, pageSize: ORDERS_PAGE }),
    listGenerations({ db, userId, query: { limit: RECENT_GENERATIONS } }),
    listApiKeys({ db, userId }),
    listSessions({ db, userId }),
    listSignInMethods({ db, userId }),
  ]);
  const { locale, i18n, seo } = pageMeta(context, request, ["admin", "billing"], () => ({
    title: record.email,
    noindex: true,
  }));
  return {
    seo,
    i18n,
    locale,
    record,
    self: record.id === viewer.id,
    balance,
    methods,
    ledger: { ...ledger, page: ledgerPage, pageSize: LEDGER_PAGE },
    orders: { ...orders, page: ordersPage, pageSize: ORDERS_PAGE },
    generations: generations.items,
    keys,
    sessions,
  };
}

const reason = z.string().trim().min(1).max(500);
const adjustment = z.object({
  amount: z.coerce
    .number()
    .int()
    .refine((n) => n !== 0 && Math.abs(n) <= MAX_CREDIT_AMOUNT),
  reason,
});

export async function action({ context, request, params }: Route.ActionArgs) {
  const { viewer, db, actor } = requireAdmin(context, request);
  const form = await formOf(request);
  const intent = form.get("intent");
  const account = { id: params.id };
  const answer = (result: AdminResult, status = 200) => data(result, { status });
  const self = params.id === viewer.id;
  switch (intent) {
    case "grant":
    case "revoke": {
      // An administrator cannot take away their own role here: the console would lock them out of itself.
      if (self) return answer({ intent, error: "user.notYourself" }, 409);
      const done = await setRole({ db, account, role: intent === "grant" ? "admin" : "user", actor });
      return done ? answer({ intent, ok: intent === "grant" ? "user.granted" : "user.revoked" }) : answer({}, 404);
    }
    case "ban": {
      if (self) return answer({ intent, error: "user.notYourself" }, 409);
      const why = reason.safeParse(form.get("reason") ?? "");
      if (!why.success) return answer({ intent, error: "user.reasonRequired", field: "reason" }, 400);
      const done = await setBan({ db, account, banned: true, reason: why.data, actor });
      return done ? answer({ intent, ok: "user.banned" }) : answer({}, 404);
    }
    case "unban": {
      const done = await setBan({ db, account, banned: false, actor });
      return done ? answer({ intent, ok: "user.unbanned" }) : answer({}, 404);
    }
    case "adjust": {
      const parsed = adjustment.safeParse({ amount: form.get("amount") ?? "", reason: form.get("reason") ?? "" });
      if (!parsed.success) {
        const field = parsed.error.issues[0]?.path[0] === "reason" ? "reason" : "amount";
        const error = field === "reason" ? "user.reasonRequired" : "user.amountInvalid";
        return answer({ intent, error, field }, 400);
      }
      try {
        const { balance } = await adjustCredits({ db, account, actor, ...parsed.data });
        return answer({ intent, ok: "user.adjusted", values: { balance: formatNumber(pathLocale(request), balance) } });
      } catch (error) {
        if (error instanceof AppError && error.code === "insufficient_credits")
          return answer({ intent, error: "user.notEnoughCredits", field: "amount" }, 409);
        if (error instanceof AppError && error.code === "not_found") return answer({}, 404);
        throw error;
      }
    }
    case "keySafety": {
      const level = String(form.get("level") ?? "");
      if (level !== "model" && !(SAFETY_LEVELS as readonly string[]).includes(level))
        return answer({ intent, error: "safety.levelInvalid" }, 400);
      const done = await setKeySafety({
        db,
        userId: params.id,
        keyId: String(form.get("keyId") ?? ""),
        level: level === "model" ? null : (level as SafetyLevel),
        actor,
      });
      return done ? answer({ intent, ok: "safety.keySaved" }) : answer({}, 404);
    }
    case "resend": {
      const sent = await resendVerificationAsAdmin({ attempt: authAttemptOf(context), userId: params.id, actor });
      if (sent.ok) return answer({ intent, ok: "user.resent" });
      if (sent.reason === "rate_limited")
        return answer({ intent, error: "user.resendLimited", values: { minutes: sent.minutes } }, 429);
      if (sent.reason === "verified") return answer({ intent, error: "user.alreadyVerified" }, 409);
      return answer({}, 404);
    }
    default:
      throw data({ messageKey: "error.400" }, { status: 400 });
  }
}

export default function AdminUser({ loaderData, actionData }: Route.ComponentProps) {
  const { t } = useTranslation("admin");
  const { pathname } = useLocation();
  const locale = loaderData.locale as Locale;
  const { record, self, balance, methods, ledger, orders, generations, keys, sessions } = loaderData;
  const orderColumns: TableColumnsType<OrderView> = [
    { title: t("user.columns.date"), dataIndex: "createdAt", render: (v: string) => formatDate(locale, v) },
    { title: t("user.columns.pack"), dataIndex: "packId" },
    {
      title: t("user.columns.credits"),
      dataIndex: "credits",
      align: "right",
      render: (v: number) => formatNumber(locale, v),
    },
    {
      title: t("user.columns.amount"),
      dataIndex: "amount",
      align: "right",
      render: (v: number, row) => formatMoney(locale, v, row.currency),
    },
    { title: t("user.columns.status"), dataIndex: "status", render: (v: string) => <Tag>{t(`orderStatus.${v}`)}</Tag> },
  ];
  const generationColumns: TableColumnsType<GenerationView> = [
    { title: t("user.columns.date"), dataIndex: "createdAt", render: (v: string) => formatDate(locale, v) },
    { title: t("user.columns.model"), key: "model", render: (_: unknown, row) => row.model.name },
    {
      title: t("user.columns.prompt"),
      dataIndex: "prompt",
      render: (v: string) => <span className="admin-clip">{v}</span>,
    },
    {
      title: t("user.columns.status"),
      dataIndex: "status",
      render: (v: string) => <Tag>{t(`generationStatus.${v}`)}</Tag>,
    },
    {
      title: t("user.columns.credits"),
      key: "credits",
      align: "right",
      render: (_: unknown, row) => formatNumber(locale, row.creditsCharged ?? row.creditsHeld),
    },
  ];
  const keyColumns: TableColumnsType<ApiKeyView> = [
    { title: t("user.columns.key"), dataIndex: "prefix", render: (v: string) => <code>{v}…</code> },
    { title: t("user.columns.name"), dataIndex: "name", render: (v: string | null) => v ?? "—" },
    {
      title: t("user.columns.status"),
      dataIndex: "status",
      render: (v: string) => <Tag color={v === "active" ? "green" : undefined}>{t(`keyStatus.${v}`)}</Tag>,
    },
    {
      title: t("user.columns.requests"),
      dataIndex: "requestCount",
      align: "right",
      render: (v: number) => formatNumber(locale, v),
    },
    {
      title: t("user.columns.lastUsed"),
      dataIndex: "lastUsedAt",
      render: (v: string | null) => (v ? formatDate(locale, v) : "—"),
    },
    {
      title: t("user.columns.safety"),
      key: "safety",
      render: (_: unknown, key) => (
        <Form method="post" className="admin-inline-form" key={`${key.id}-${key.safetyLevel ?? "model"}`}>
          <input type="hidden" name="keyId" value={key.id} />
          <select
            name="level"
            defaultValue={key.safetyLevel ?? "model"}
            aria-label={t("user.columns.safety")}
            className="admin-native-select"
          >
            {(["model", ...SAFETY_LEVELS] as const).map((level) => (
              <option key={level} value={level}>
                {t(`safety.levels.${level}`)}
              </option>
            ))}
          </select>
          <Button htmlType="submit" size="small" name="intent" value="keySafety">
            {t("settings.save")}
          </Button>
        </Form>
      ),
    },
  ];
  type SessionRow = (typeof sessions)[number];
  const sessionColumns: TableColumnsType<SessionRow> = [
    {
      title: t("user.columns.lastActive"),
      dataIndex: "lastActiveAt",
      render: (v: string) => formatDate(locale, v),
    },
    { title: t("user.columns.ip"), dataIndex: "ipAddress", render: (v: string | null) => v ?? "—" },
    {
      title: t("user.columns.device"),
      dataIndex: "userAgent",
      render: (v: string | null) => <span className="admin-clip">{v ?? "—"}</span>,
    },
  ];
  return (
    <div className="page-wide">
      <p className="admin-back">
        <Link to={hrefIn(pathname, "/user/admin/users")}>← {t("user.back")}</Link>
      </p>
      <Typography.Title level={1} className="page-title admin-user-title">
        {record.name}
      </Typography.Title>
      <div className="admin-user-head">
        <UserTags user={record} />
      </div>
      <div className="admin-user-grid">
        <Card title={t("user.profile")}>
          <Descriptions column={1} size="small">
            <Descriptions.Item label={t("user.email")}>{record.email}</Descriptions.Item>
            <Descriptions.Item label={t("user.joined")}>{formatDate(locale, record.createdAt)}</Descriptions.Item>
            <Descriptions.Item label={t("user.language")}>
              {isLocale(record.locale) ? LOCALE_NAMES[record.locale] : "—"}
            </Descriptions.Item>
            <Descriptions.Item label={t("user.signInMethods")}>
              {methods.length ? methods.map((m) => t(`user.methods.${m}`, { defaultValue: m })).join(", ") : "—"}
            </Descriptions.Item>
            {record.banned && (
              <Descriptions.Item label={t("user.banReason")}>{record.banReason ?? "—"}</Descriptions.Item>
            )}
            <Descriptions.Item label={t("user.balance")}>
              {formatNumber(locale, balance.balance)}
              {balance.held > 0 && ` (${t("user.held", { held: formatNumber(locale, balance.held) })})`}
            </Descriptions.Item>
          </Descriptions>
        </Card>
        <UserActions record={record} self={self} balance={balance.balance} result={actionData} />
      </div>
      <section aria-labelledby="ledger-heading">
        <Typography.Title level={2} id="ledger-heading" className="section-title">
          {t("user.ledger")}
        </Typography.Title>
        <CreditHistoryTable history={ledger} locale={locale} linked={false} />
      </section>
      <section aria-labelledby="orders-heading">
        <Typography.Title level={2} id="orders-heading" className="section-title">
          {t("user.orders")}
        </Typography.Title>
        <PagedTable paged={orders} param="orders" columns={orderColumns} empty={t("user.noOrders")} />
      </section>
      <section aria-labelledby="generations-heading">
        <Typography.Title level={2} id="generations-heading" className="section-title">
          {t("user.generations")}
        </Typography.Title>
        <PagedTable
          paged={allRows(generations)}
          param="generations"
          columns={generationColumns}
          empty={t("user.noGenerations")}
        />
      </section>
      <section aria-labelledby="keys-heading">
        <Typography.Title level={2} id="keys-heading" className="section-title">
          {t("user.keys")}
        </Typography.Title>
        {actionData?.intent === "keySafety" && <ResultNotice result={actionData} />}
        <PagedTable paged={allRows(keys)} param="keys" columns={keyColumns} empty={t("user.noKeys")} />
      </section>
      <section aria-labelledby="sessions-heading">
        <Typography.Title level={2} id="sessions-heading" className="section-title">
          {t("user.sessions")}
        </Typography.Title>
        <PagedTable paged={allRows(sessions)} param="sessions" columns={sessionColumns} empty={t("user.noSessions")} />
      </section>
    </div>
  );
}
