import type { ReactNode } from "react";
import { Card } from "#app/components/ui/display.tsx";
import { Paragraph, Title } from "#app/components/ui/typography.tsx";

/** The centred card every sign-in page sits in. */
export function AuthCard({ title, subtitle, children }: { title: string; subtitle?: ReactNode; children: ReactNode }) {
  return (
    <div className="auth-page">
      <Card className="auth-card" variant="borderless">
        <Title level={1} className="auth-title">
          {title}
        </Title>
        {subtitle && <Paragraph type="secondary">{subtitle}</Paragraph>}
        {children}
      </Card>
    </div>
  );
}
