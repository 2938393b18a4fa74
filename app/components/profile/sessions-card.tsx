import { Button, Card, List, Tag, Typography } from "antd";
import { DesktopOutlined } from "#app/components/antd-icons.ts";
import { useTranslation } from "react-i18next";
import { useFetcher } from "react-router";
import Bowser from "bowser";
import { momentOf, useHydrated } from "#app/components/relative-time.tsx";
import type { Locale } from "#common/locales.ts";
import { useResultToast, type ProfileResult } from "./result.ts";

export interface SessionRow {
  id: string;
  userAgent: string | null;
  ipAddress: string;
  lastActiveAt: Date | string;
}

function describeDevice(userAgent: string | null, t: (key: string, o?: Record<string, string>) => string) {
  if (!userAgent) return t("profile.unknownDevice");
  const parsed = Bowser.parse(userAgent);
  const browser = [parsed.browser.name, parsed.browser.version?.split(".")[0]].filter(Boolean).join(" ");
  const os = [parsed.os.name, parsed.os.versionName ?? parsed.os.version].filter(Boolean).join(" ");
  if (!browser && !os) return t("profile.unknownDevice");
  return t("profile.deviceOn", { browser: browser || "?", os: os || "?" });
}

/** The devices signed in to the account, each but this one ended with a click, or all others at once. */
export function SessionsCard({
  sessions,
  currentSessionId,
  locale,
}: {
  sessions: SessionRow[];
  currentSessionId: string | null | undefined;
  locale: Locale;
}) {
  const { t } = useTranslation("user");
  const sessionFetcher = useFetcher<ProfileResult>();
  useResultToast(sessionFetcher.data);
  const others = sessions.filter((s) => s.id !== currentSessionId);
  const hydrated = useHydrated();
  return (
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
              description={[t("profile.lastActive", { time: momentOf(locale, s.lastActiveAt, hydrated) }), s.ipAddress]
                .filter(Boolean)
                .join(" · ")}
            />
          </List.Item>
        )}
      />
      {others.length === 0 && <Typography.Text type="secondary">{t("profile.noOtherSessions")}</Typography.Text>}
    </Card>
  );
}
