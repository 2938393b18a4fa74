import { Space, Tag } from "antd";
import { useTranslation } from "react-i18next";

/** What sets an account apart at a glance: the admin role, a suspension, an address not yet confirmed. */
export function UserTags({ user }: { user: { role: string; banned: boolean; emailVerified: boolean } }) {
  const { t } = useTranslation("admin");
  return (
    <Space size={4} wrap>
      {user.role === "admin" && <Tag color="purple">{t("users.roles.admin")}</Tag>}
      {user.banned ? <Tag color="red">{t("users.suspended")}</Tag> : <Tag color="green">{t("users.active")}</Tag>}
      {!user.emailVerified && <Tag>{t("users.unconfirmed")}</Tag>}
    </Space>
  );
}
