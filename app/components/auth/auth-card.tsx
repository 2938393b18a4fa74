import type { ReactNode } from "react";
import { Card, Typography } from "antd";
import { useRestoreTypedFields } from "#app/lib/typed-before-hydration.ts";

/** The centred card every sign-in page sits in. */
export function AuthCard({ title, subtitle, children }: { title: string; subtitle?: ReactNode; children: ReactNode }) {
  const ref = useRestoreTypedFields<HTMLElement>();
  return (
    <main className="auth-page" ref={ref}>
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
