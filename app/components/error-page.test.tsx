import { describe, expect, it } from "vitest";
import { renderToString } from "react-dom/server";
import { createMemoryRouter, RouterProvider } from "react-router";
import { I18nextProvider } from "react-i18next";
import { ErrorPage } from "#app/components/error-page.tsx";
import { createI18n } from "#common/i18n.ts";
import en from "../../locales/en/common.json";
import ja from "../../locales/ja/common.json";
import enMessages from "../../locales/en/messages.json";
import jaMessages from "../../locales/ja/messages.json";

function render(status: number, { locale = "en", messageKey }: { locale?: "en" | "ja"; messageKey?: string } = {}) {
  const i18n = createI18n(locale, {
    en: { common: en, messages: enMessages },
    ja: { common: ja, messages: jaMessages },
  });
  const router = createMemoryRouter([{ path: "*", element: <ErrorPage status={status} messageKey={messageKey} /> }], {
    initialEntries: ["/dashboard/home?tab=1"],
  });
  return renderToString(
    <I18nextProvider i18n={i18n}>
      <RouterProvider router={router} />
    </I18nextProvider>,
  );
}

const buttons = (html: string) =>
  [...html.matchAll(/<(?:a|button)[^>]*class="[^"]*ant-btn[^>]*>.*?<span>([^<]*)<\/span>/g)].map((m) => m[1]);

describe("the full-screen error page", () => {
  it.each([
    [
      400,
      "Request error, please check and try again.",
      "Your request is invalid, please check and try again.",
      "error",
    ],
    [401, "Your session has expired, please log in again.", undefined, "error"],
    [403, "You do not have permission to access this page.", undefined, "403"],
    [404, "Sorry, the page you are looking for does not exist.", undefined, "404"],
    [500, "The server has encountered an error, please try again later.", undefined, "error"],
    [503, "An unknown error occurred.", undefined, "error"],
  ])("%i: status as title, its subtitle and message, the right illustration", (status, subtitle, message, kind) => {
    const html = render(status);
    expect(html).toContain(`<div class="ant-result-title">${status}</div>`);
    expect(html).toContain(`<div class="ant-result-subtitle">${subtitle.replace(/'/g, "&#x27;")}</div>`);
    if (message) expect(html).toContain(`<p class="error-page-message">${message}</p>`);
    else expect(html).not.toContain("error-page-message");
    expect(html).toContain(kind === "error" ? "ant-result-error" : `ant-result-${kind}`);
  });

  it("offers Retry from 500 up, sign-in for 401, and always Back to Home to the root", () => {
    expect(buttons(render(404))).toEqual(["Back to Home"]);
    expect(buttons(render(500))).toEqual(["Back to Home", "Retry"]);
    expect(buttons(render(503))).toEqual(["Back to Home", "Retry"]);
    const expired = render(401);
    expect(buttons(expired)).toEqual(["Sign in", "Back to Home"]);
    expect(expired).toContain('href="/auth/login?redirect=%2Fdashboard%2Fhome%3Ftab%3D1"');
    expect(render(403)).toMatch(/<a[^>]*href="\/"[^>]*><span>Back to Home<\/span>/);
  });

  it("shows the application's own message when the error carries one, in the page's language", () => {
    const html = render(402, { locale: "ja", messageKey: "msg.generation.insufficientCredits" });
    expect(html).toContain(jaMessages.msg.generation.insufficientCredits);
    expect(html).toContain(ja.error.unknown);
  });

  it("says a message that repeats the subtitle once (the administrators' pages refuse others with it)", () => {
    const html = render(403, { messageKey: "error.403" });
    expect(html.split(en.error["403"]).length - 1).toBe(1);
    expect(html).not.toContain("error-page-message");
  });
});
