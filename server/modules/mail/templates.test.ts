import { describe, expect, it } from "vitest";
import { LOCALES } from "#common/locales.ts";
import { MAIL_KINDS, renderMail } from "./templates.ts";

const site = { name: "Atelier", url: "https://atelier.example", supportEmail: "help@atelier.example" };

describe("the e-mails", () => {
  it("render every kind in every language, each placeholder filled", () => {
    for (const locale of LOCALES)
      for (const kind of MAIL_KINDS) {
        const mail = renderMail({
          kind,
          locale,
          site,
          name: "Ada",
          url: "https://atelier.example/x",
          values: { plan: "Pro", date: "28 Dec 2026", credits: "500", amount: "$20.00" },
        });
        for (const part of [mail.subject, mail.text, mail.html]) expect(part, `${locale} ${kind}`).not.toMatch(/\{\{/);
        expect(mail.subject, `${locale} ${kind}`).toContain("Atelier");
      }
  });

  it("say the plan and the grace period's end of a renewal that was not paid, in the subscriber's language", () => {
    for (const kind of ["billing.paymentFailed", "billing.actionRequired"] as const) {
      const mail = renderMail({
        kind,
        locale: "de",
        site,
        name: "Ada",
        url: "https://atelier.example/de/user/orders",
        values: { plan: "Profi", date: "28.12.2026" },
      });
      expect(mail.text).toContain("Profi");
      expect(mail.text).toContain("28.12.2026");
      expect(mail.text).toContain("Hallo Ada");
      expect(mail.html).toContain('href="https://atelier.example/de/user/orders"');
    }
  });
});
