import { useTranslation } from "react-i18next";
import { Form, Link, data, useLocation, useNavigation } from "react-router";
import type { Route } from "./+types/share";
import { AntdProvider } from "#app/components/antd-provider.tsx";
import { Button } from "#app/components/ui/button.tsx";
import { Paragraph, Title } from "#app/components/ui/typography.tsx";
import { OfflineTag } from "#app/components/studio/parts.tsx";
import { OutputMedia } from "#app/components/studio/result-view.tsx";
import { formOf, serverContextOf } from "#app/lib/request.server.ts";
import { seoMeta } from "#app/seo.ts";
import { pageMeta } from "#app/lib/page.server.ts";
import { AppError } from "#server/errors.ts";
import { getGeneration } from "#server/modules/generation/get-generation.ts";
import { hrefIn } from "#common/locales.ts";
import { resultPath } from "#app/lib/generations.ts";
import { Alert } from "#app/components/ui/display.tsx";
import { reportGeneration } from "#server/modules/safety/report-generation.ts";
import { reportSchema } from "#server/modules/safety/schema.ts";
import { REPORT_NOTE_MAX, REPORT_REASONS } from "#common/safety.ts";

export const meta = ({ loaderData }: Route.MetaArgs) => seoMeta(loaderData?.seo);

// Its owner may make it private or delete it at any moment: never kept by the page cache or a shared cache. A
// report refused for too many says when to come back.
export const headers: Route.HeadersFunction = ({ parentHeaders, actionHeaders }) => {
  const headers = new Headers(parentHeaders);
  headers.set("Cache-Control", "private, no-cache");
  const retryAfter = actionHeaders.get("Retry-After");
  if (retryAfter) headers.set("Retry-After", retryAfter);
  return headers;
};

type ReportResult = { reported: true } | { reportError: "invalid" | "tooMany" };

/**
 * A visitor's report of this result (no account needed): a plain form, so it works before the scripts. Counted by a
 * keyed hash of the address, limited per address; the same visitor's second report of it is taken, and kept once.
 */
export async function action({ context, request, params }: Route.ActionArgs) {
  const { runtime, session, clientIp } = serverContextOf(context);
  const form = await formOf(request);
  const parsed = reportSchema.safeParse({
    reason: form.get("reason") ?? undefined,
    note: form.get("note") ?? undefined,
  });
  if (!parsed.success) return data<ReportResult>({ reportError: "invalid" }, { status: 400 });
  try {
    const outcome = await reportGeneration({
      db: runtime.database.db,
      generationId: params.id,
      report: parsed.data,
      reporterHash: runtime.hashAddress(clientIp),
      reporterId: session.viewer?.id ?? null,
    });
    if (!outcome.ok)
      return data<ReportResult>(
        { reportError: "tooMany" },
        { status: 429, headers: { "Retry-After": String(outcome.retryAfter) } },
      );
    return { reported: true } satisfies ReportResult;
  } catch (error) {
    if (error instanceof AppError && error.code === "not_found") throw data(null, { status: 404 });
    throw error;
  }
}

/** A generation its owner made public: anyone can look at it; a private or unknown one does not exist (404). */
export async function loader({ context, request, params }: Route.LoaderArgs) {
  const { runtime, session } = serverContextOf(context);
  let generation;
  try {
    generation = await getGeneration({
      db: runtime.database.db,
      env: runtime.env,
      id: params.id,
      viewerId: session.viewer?.id ?? null,
      allowPublic: true,
      chain: true,
    });
  } catch (error) {
    if (error instanceof AppError && error.code === "not_found") throw data(null, { status: 404 });
    throw error;
  }
  if (generation.visibility !== "public" || generation.status !== "succeeded") throw data(null, { status: 404 });
  const image = generation.outputs[0];
  const { i18n, seo } = pageMeta(context, request, ["studio", "messages"], (t) => ({
    title: t("studio:share.pageTitle"),
    description: generation.prompt.slice(0, 160),
    // Shared by a user, not written by the site: kept out of search results.
    noindex: true,
    image: image?.thumbUrl || undefined,
  }));
  return {
    seo,
    i18n,
    generation: {
      id: generation.id,
      kind: generation.kind,
      tool: generation.tool,
      parent: generation.parent ?? null,
      prompt: generation.prompt,
      model: generation.model,
      params: { aspectRatio: generation.params.aspectRatio },
      outputs: generation.outputs,
      mine: generation.mine,
    },
  };
}

/** "Report": a disclosure with the reason, an optional note and the button; the thanks once sent. */
function ReportForm({ result }: { result: ReportResult | undefined }) {
  const { t } = useTranslation("studio");
  const navigation = useNavigation();
  const busy = navigation.state === "submitting";
  if (result && "reported" in result)
    return (
      <div className="share-report" data-testid="report-thanks">
        <Alert type="success" title={t("share.report.thanks")} />
      </div>
    );
  const error = result && "reportError" in result ? result.reportError : null;
  return (
    <details className="share-report" open={Boolean(error)}>
      <summary>{t("share.report.open")}</summary>
      <Form method="post" className="share-report-form">
        <fieldset>
          <legend>{t("share.report.reason")}</legend>
          {REPORT_REASONS.map((reason) => (
            <label key={reason} className="share-report-reason">
              <input type="radio" name="reason" value={reason} required />
              <span>{t(`share.report.reasons.${reason}`)}</span>
            </label>
          ))}
        </fieldset>
        <label className="share-report-note">
          <span>{t("share.report.note")}</span>
          <textarea name="note" rows={3} maxLength={REPORT_NOTE_MAX} />
        </label>
        {error && (
          <Alert
            type="error"
            title={t(error === "tooMany" ? "share.report.tooMany" : "share.report.invalid", { max: REPORT_NOTE_MAX })}
          />
        )}
        <Button htmlType="submit" loading={busy} danger>
          {t("share.report.submit")}
        </Button>
      </Form>
    </details>
  );
}

export default function SharedGeneration({ loaderData, actionData }: Route.ComponentProps) {
  const { t } = useTranslation("studio");
  const { pathname } = useLocation();
  const g = loaderData.generation;
  // The picture viewer comes from the studio, built with Ant Design.
  return (
    <AntdProvider>
      <div className="page share">
        <div className="share-media">
          <OutputMedia generation={g} />
        </div>
        <div className="share-info">
          <Title level={1} className="share-title">
            {t("share.pageTitle")}
          </Title>
          <p className="share-tool">{t(`tools.${g.tool}.title`)}</p>
          <Paragraph className="share-prompt">{g.prompt}</Paragraph>
          {g.parent && (
            <p className="share-parent" data-testid="made-from">
              <span>{t("chain.madeFrom")}</span>{" "}
              <Link to={hrefIn(pathname, g.mine ? resultPath(g.parent) : `/share/${g.parent.id}`)}>
                {g.parent.thumbUrl && <img src={g.parent.thumbUrl} alt="" className="share-parent-thumb" />}
                {t(`tools.${g.parent.tool}.title`)}
              </Link>
            </p>
          )}
          <p className="share-model">
            {g.model.name}
            {g.model.offline && <OfflineTag />}
          </p>
          <Link to={hrefIn(pathname, "/dashboard/image/create/text-to-image")}>
            <Button type="primary">{t("share.cta")}</Button>
          </Link>
          <p className="share-verify">
            <Link to={hrefIn(pathname, "/verify")}>{t("common:verifyLink")}</Link>
          </p>
          <ReportForm result={actionData as ReportResult | undefined} />
        </div>
      </div>
    </AntdProvider>
  );
}
