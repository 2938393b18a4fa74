import { useEffect, useRef, useState } from "react";
import { Alert, Button, Card, Form as AntForm, Input, List, Modal, Select, Space, Tag, Typography, Upload } from "antd";
import { DeleteOutlined, DesktopOutlined, LockOutlined, UploadOutlined } from "@ant-design/icons";
import { useTranslation } from "react-i18next";
import { Link, data, redirect, useFetcher, useLocation, useNavigation } from "react-router";
import Bowser from "bowser";
import type { Route } from "./+types/profile";
import { pageMeta } from "#app/lib/page.server.ts";
import { seoMeta } from "#app/seo.ts";
import { useToast } from "#app/components/feedback.ts";
import { UserAvatar } from "#app/components/layout/user-menu.tsx";
import { authAttemptOf, cookiesOf, requireViewer } from "#app/lib/auth.server.ts";
import { deleteOwnAccount } from "#server/modules/auth/delete-own-account.ts";
import { localizedPath, serverContextOf } from "#app/lib/request.server.ts";
import { flashCookie, localeCookie } from "#server/http/cookies.ts";
import { getAccount } from "#server/modules/users/get-account.ts";
import { listSignInMethods } from "#server/modules/users/list-sign-in-methods.ts";
import { updateProfile } from "#server/modules/users/update-profile.ts";
import { AvatarError, removeAvatar, setAvatar } from "#server/modules/users/set-avatar.ts";
import { AVATAR_MAX_BYTES } from "#common/uploads.ts";
import { listSessions } from "#server/modules/users/list-sessions.ts";
import { revokeSession } from "#server/modules/users/revoke-session.ts";
import { revokeOtherSessions } from "#server/modules/users/revoke-other-sessions.ts";
import { nameField } from "#common/auth-schema.ts";
import { formatDate, formatRelative } from "#common/format.ts";
import { LOCALES, LOCALE_NAMES, hrefIn, isLocale, localizePath, type Locale } from "#common/locales.ts";
import { useRestoreTypedFields } from "#app/lib/typed-before-hydration.ts";

export const meta = ({ loaderData }: Route.MetaArgs) => seoMeta(loaderData?.seo);

export async function loader({ context, request }: Route.LoaderArgs) {
  const { viewer, db } = requireViewer(context, request);
  const { session } = serverContextOf(context);
  const [account, methods, sessions] = await Promise.all([
    getAccount({ db, userId: viewer.id }),
    listSignInMethods({ db, userId: viewer.id }),
    listSessions({ db, userId: viewer.id }),
  ]);
  const { locale, i18n, seo } = pageMeta(context, request, ["user", "auth"], (t) => ({
    title: t("user:profile.title"),
    noindex: true,
  }));
  return {
    seo,
    i18n,
    locale,
    account,
    hasPassword: methods.includes("credential"),
    providers: methods.filter((m) => m !== "credential"),
    currentSessionId: session.sessionId,
    sessions: sessions.map((s) => ({ ...s, ipAddress: s.ipAddress ?? "" })),
  };
}

type Result = { ok?: string; error?: string; field?: string };

export async function action({ context, request }: Route.ActionArgs) {
  const { viewer, runtime, db } = requireViewer(context, request);
  const { session } = serverContextOf(context);
  const form = await request.formData();
  const intent = form.get("intent");

  switch (intent) {
    case "name": {
      const parsed = nameField.safeParse(form.get("name"));
      if (!parsed.success)
        return data<Result>({ error: `auth:${parsed.error.issues[0]!.message}`, field: "name" }, { status: 400 });
      await updateProfile({ db, userId: viewer.id, name: parsed.data });
      return { ok: "profile.nameSaved" } satisfies Result;
    }
    case "locale": {
      const locale = form.get("locale");
      if (!isLocale(locale)) return data<Result>({ error: "common:error.400" }, { status: 400 });
      await updateProfile({ db, userId: viewer.id, locale });
      // The page itself moves to the chosen language, as it will after every sign-in.
      const out = new Headers({ "Set-Cookie": localeCookie(locale) });
      return redirect(localizePath("/user/profile", locale), { headers: out });
    }
    case "avatar": {
      const file = form.get("avatar");
      if (!(file instanceof File) || file.size === 0)
        return data<Result>({ error: "profile.avatarInvalid" }, { status: 400 });
      try {
        await setAvatar({
          db,
          storage: runtime.storage,
          userId: viewer.id,
          bytes: new Uint8Array(await file.arrayBuffer()),
        });
      } catch (error) {
        if (error instanceof AvatarError) return data<Result>({ error: `profile.${error.problem}` }, { status: 400 });
        throw error;
      }
      return { ok: "profile.avatarSaved" } satisfies Result;
    }
    case "avatar-remove":
      await removeAvatar({ db, storage: runtime.storage, userId: viewer.id });
      return { ok: "profile.avatarRemoved" } satisfies Result;
    case "revoke": {
      const id = String(form.get("session") ?? "");
      if (id === session.sessionId) return data<Result>({ error: "common:error.400" }, { status: 400 });
      await revokeSession({ db, userId: viewer.id, sessionId: id });
      return { ok: "profile.revoked" } satisfies Result;
    }
    case "revoke-others":
      await revokeOtherSessions({ db, userId: viewer.id, keepSessionId: session.sessionId! });
      return { ok: "profile.revokedOthers" } satisfies Result;
    case "delete": {
      const deleted = await deleteOwnAccount({
        ...authAttemptOf(context),
        storage: runtime.storage,
        viewer,
        password: String(form.get("password") ?? ""),
        email: String(form.get("email") ?? ""),
      });
      if (!deleted.ok) {
        const error = deleted.reason === "wrong_password" ? "auth:error.wrongPassword" : "profile.deleteEmailMismatch";
        return data<Result>({ error, field: "delete" }, { status: 400 });
      }
      const out = cookiesOf(deleted.cookies);
      out.append("Set-Cookie", flashCookie("accountDeleted"));
      return redirect(localizedPath(request, "/"), { headers: out });
    }
    default:
      return data<Result>({ error: "common:error.400" }, { status: 400 });
  }
}

/** Shows a fetcher's answer as a toast once it arrives. */
function useResultToast(result: Result | undefined) {
  const { t } = useTranslation("user");
  const toast = useToast();
  const seen = useRef<Result | undefined>(undefined);
  useEffect(() => {
    if (!result || seen.current === result) return;
    seen.current = result;
    if (result.ok) toast.success(t(result.ok));
    else if (result.error && result.field !== "name" && result.field !== "delete") toast.error(t(result.error));
  }, [result, t, toast]);
}

function describeDevice(userAgent: string | null, t: (key: string, o?: Record<string, string>) => string) {
  if (!userAgent) return t("profile.unknownDevice");
  const parsed = Bowser.parse(userAgent);
  const browser = [parsed.browser.name, parsed.browser.version?.split(".")[0]].filter(Boolean).join(" ");
  const os = [parsed.os.name, parsed.os.versionName ?? parsed.os.version].filter(Boolean).join(" ");
  if (!browser && !os) return t("profile.unknownDevice");
  return t("profile.deviceOn", { browser: browser || "?", os: os || "?" });
}

export default function Profile({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("user");
  const { pathname } = useLocation();
  const { account, locale, sessions, currentSessionId, hasPassword, providers } = loaderData;
  const nameFetcher = useFetcher<Result>();
  const localeFetcher = useFetcher<Result>();
  const avatarFetcher = useFetcher<Result>();
  const sessionFetcher = useFetcher<Result>();
  useResultToast(nameFetcher.data);
  useResultToast(avatarFetcher.data);
  useResultToast(sessionFetcher.data);
  useResultToast(localeFetcher.data);
  const toast = useToast();
  const others = sessions.filter((s) => s.id !== currentSessionId);
  const nameError = nameFetcher.data?.field === "name" ? nameFetcher.data.error : undefined;
  const main = useRestoreTypedFields<HTMLElement>();

  return (
    <main className="page-narrow profile" ref={main}>
      <Typography.Title level={1}>{t("profile.title")}</Typography.Title>
      <Typography.Paragraph type="secondary">{t("profile.subtitle")}</Typography.Paragraph>

      <Card title={t("profile.details")} className="profile-card">
        <div className="profile-avatar">
          <UserAvatar name={account.name} image={account.image} size={88} />
          <div>
            <Typography.Text strong>{t("profile.avatar")}</Typography.Text>
            <Typography.Paragraph type="secondary">{t("profile.avatarHint")}</Typography.Paragraph>
            <Space wrap>
              <Upload
                accept="image/png,image/jpeg,image/webp"
                showUploadList={false}
                maxCount={1}
                customRequest={({ file }) => {
                  const body = new FormData();
                  body.set("intent", "avatar");
                  body.set("avatar", file as File);
                  void avatarFetcher.submit(body, { method: "post", encType: "multipart/form-data" });
                }}
                beforeUpload={(file) => {
                  // Saves sending a large file only to hear it is too large; the server checks again.
                  if (file.size <= AVATAR_MAX_BYTES) return true;
                  toast.error(t("profile.avatarTooLarge"));
                  return Upload.LIST_IGNORE;
                }}
              >
                <Button icon={<UploadOutlined />} loading={avatarFetcher.state !== "idle"}>
                  {t("profile.avatarUpload")}
                </Button>
              </Upload>
              {account.image && (
                <avatarFetcher.Form method="post">
                  <Button htmlType="submit" name="intent" value="avatar-remove">
                    {t("profile.avatarRemove")}
                  </Button>
                </avatarFetcher.Form>
              )}
            </Space>
          </div>
        </div>
        <nameFetcher.Form method="post" className="profile-name">
          <AntForm component={false} layout="vertical">
            <AntForm.Item
              label={t("profile.name")}
              htmlFor="profile-name"
              validateStatus={nameError ? "error" : undefined}
              help={nameError ? t(nameError, { max: 80 }) : undefined}
            >
              <Space.Compact className="profile-name-row">
                <Input id="profile-name" name="name" defaultValue={account.name} maxLength={80} autoComplete="name" />
                <Button
                  type="primary"
                  htmlType="submit"
                  name="intent"
                  value="name"
                  loading={nameFetcher.state !== "idle"}
                >
                  {t("profile.saveName")}
                </Button>
              </Space.Compact>
            </AntForm.Item>
            <AntForm.Item label={t("profile.email")}>
              <Typography.Text>{account.email}</Typography.Text>
            </AntForm.Item>
          </AntForm>
        </nameFetcher.Form>
        <Typography.Text type="secondary">
          {t("profile.memberSince", { date: formatDate(locale, account.createdAt, { dateOnly: true }) })}
        </Typography.Text>
      </Card>

      <Card title={t("profile.language")} className="profile-card">
        <Typography.Paragraph type="secondary">{t("profile.languageHint")}</Typography.Paragraph>
        <Select<Locale>
          className="profile-language"
          aria-label={t("profile.language")}
          value={isLocale(account.locale) ? account.locale : locale}
          loading={localeFetcher.state !== "idle"}
          options={LOCALES.map((l) => ({ value: l, label: <span lang={l}>{LOCALE_NAMES[l]}</span> }))}
          onChange={(value) => void localeFetcher.submit({ intent: "locale", locale: value }, { method: "post" })}
        />
      </Card>

      <Card title={t("profile.password")} className="profile-card">
        {hasPassword ? (
          <>
            <Typography.Paragraph type="secondary">{t("profile.passwordHint")}</Typography.Paragraph>
            <Button icon={<LockOutlined />}>
              <Link to={hrefIn(pathname, "/auth/update-password")}>{t("auth:change.title")}</Link>
            </Button>
          </>
        ) : (
          <Typography.Paragraph type="secondary">
            {t("profile.passwordNone", {
              providers: providers.map((p) => p.charAt(0).toUpperCase() + p.slice(1)).join(", "),
            })}
          </Typography.Paragraph>
        )}
      </Card>

      <Card
        title={t("profile.sessions")}
        className="profile-card"
        extra={
          others.length > 0 && (
            <sessionFetcher.Form method="post">
              <Button htmlType="submit" name="intent" value="revoke-others" danger>
                {t("profile.revokeOthers")}
              </Button>
            </sessionFetcher.Form>
          )
        }
      >
        <Typography.Paragraph type="secondary">{t("profile.sessionsHint")}</Typography.Paragraph>
        <List
          className="profile-sessions"
          dataSource={sessions}
          renderItem={(s) => (
            <List.Item
              actions={
                s.id === currentSessionId
                  ? [
                      <Tag key="this" color="green">
                        {t("profile.thisDevice")}
                      </Tag>,
                    ]
                  : [
                      <sessionFetcher.Form method="post" key="revoke">
                        <input type="hidden" name="session" value={s.id} />
                        <Button htmlType="submit" name="intent" value="revoke" size="small">
                          {t("profile.revoke")}
                        </Button>
                      </sessionFetcher.Form>,
                    ]
              }
            >
              <List.Item.Meta
                avatar={<DesktopOutlined />}
                title={describeDevice(s.userAgent, (key, o) => t(key, o ?? {}))}
                description={[t("profile.lastActive", { time: formatRelative(locale, s.lastActiveAt) }), s.ipAddress]
                  .filter(Boolean)
                  .join(" · ")}
              />
            </List.Item>
          )}
        />
        {others.length === 0 && <Typography.Text type="secondary">{t("profile.noOtherSessions")}</Typography.Text>}
      </Card>

      <DeleteAccount hasPassword={hasPassword} />
    </main>
  );
}

function DeleteAccount({ hasPassword }: { hasPassword: boolean }) {
  const { t } = useTranslation("user");
  const [open, setOpen] = useState(false);
  const navigation = useNavigation();
  const fetcher = useFetcher<Result>();
  const error = fetcher.data?.field === "delete" ? fetcher.data.error : undefined;
  return (
    <Card title={t("profile.danger")} className="profile-card profile-danger">
      <Typography.Paragraph type="secondary">{t("profile.deleteHint")}</Typography.Paragraph>
      <Button danger icon={<DeleteOutlined />} onClick={() => setOpen(true)}>
        {t("profile.deleteButton")}
      </Button>
      <Modal
        open={open}
        title={t("profile.deleteConfirmTitle")}
        onCancel={() => setOpen(false)}
        footer={null}
        destroyOnHidden
      >
        <fetcher.Form method="post">
          <Typography.Paragraph>
            {t(hasPassword ? "profile.deleteConfirm" : "profile.deleteConfirmOAuth")}
          </Typography.Paragraph>
          {error && <Alert type="error" showIcon title={t(error)} className="auth-alert" role="alert" />}
          {hasPassword ? (
            <Input.Password
              name="password"
              autoComplete="current-password"
              aria-label={t("auth:field.password")}
              autoFocus
            />
          ) : (
            <Input name="email" type="email" aria-label={t("auth:field.email")} autoFocus />
          )}
          <div className="modal-actions">
            <Button onClick={() => setOpen(false)}>{t("common:action.cancel")}</Button>
            <Button
              danger
              type="primary"
              htmlType="submit"
              name="intent"
              value="delete"
              loading={fetcher.state !== "idle" || navigation.state !== "idle"}
            >
              {t("profile.deleteButton")}
            </Button>
          </div>
        </fetcher.Form>
      </Modal>
    </Card>
  );
}
