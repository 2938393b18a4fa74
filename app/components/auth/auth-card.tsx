import type { ReactNode } from "react";
import { Card, Typography } from "antd";

/** The centred card every sign-in page sits in. */
export function AuthCard({ title, subtitle, children }: { title: string; subtitle?: ReactNode; children: ReactNode }) {
  return (
    <main className="auth-page">
      <Card className="auth-card" variant="borderless">
        <Typography.Title level={1} className="auth-title">
          {title}
        </Typography.Title>
        {subtitle && <Typography.Paragraph type="secondary">{subtitle}</Typography.Paragraph>}
        {children}
      </Card>
    </main>
  );
}
