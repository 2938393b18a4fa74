import { useTranslation } from "react-i18next";
import { Form, Link, data, useLocation, useNavigation } from "react-router";
import type { Route } from "./+types/share";
import { AntdProvider } from "#app/components/antd-provider.tsx";
import { Button } from "#app/components/ui/button.tsx";
import { Paragraph, Title } from "#app/components/ui/typography.tsx";
import { OfflineTag } from "#app/components/studio/parts.tsx";
import { OutputMedia } from "#app/components/studio/result-view.tsx";
import { formOf, pathLocale, serverContextOf } from "#app/lib/request.server.ts";
import { likeFromForm } from "#app/lib/like-action.server.ts";
import { getPublicResult } from "#server/modules/explore/get-public-result.ts";
import { listRemixes } from "#server/modules/explore/list-remixes.ts";
import { listRelated } from "#server/modules/explore/list-related.ts";
import type { ExploreItem } from "#server/modules/explore/listing.ts";
import type { ExploreCardItem } from "#app/components/explore/explore-card.tsx";
import { ExploreGrid } from "#app/components/explore/explore-grid.tsx";
import { LikeButton } from "#app/components/explore/like-button.tsx";
import type { GenerationParams } from "#common/generation.ts";
import { toolPath } from "#common/tools.ts";
import { formatDate } from "#common/format.ts";
import { seoMeta } from "#app/seo.ts";
import { pageMeta } from "#app/lib/page.server.ts";
import { AppError } from "#server/errors.ts";
import { getGeneration } from "#server/modules/generation/get-generation.ts";
import { hrefIn, localeOfPath, localizedUrl } from "#common/locales.ts";
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
 * A visitor's report of this result, or a like (see `likeFromForm`): plain forms, so they work before the scripts.
 */

/**
 * The report (no account needed): a plain form, so it works before the scripts. Counted by a
 * keyed hash of the address, limited per address; the same visitor's second report of it is taken, and kept once.
 */
export async function action({ context, request, params }: Route.ActionArgs) {
  const { runtime, session, clientIp } = serverContextOf(context);
  const form = await formOf(request);
  const liked = await likeFromForm(context, request, form);
  if (liked) return liked;
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

const RELATED_SIZE = 8;

/** A prompt as a page title: its first words, cut at a word near 60 characters. */
function titleOf(prompt: string): string {
  const flat = prompt.replace(/\s+/g, " ").trim();
  if (flat.length <= 60) return flat;
  const cut = flat.slice(0, 60);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(" "), 40))}…`;
}

/** ISO 8601 duration of a video (`PT5S`), as schema.org's VideoObject takes it. */
const isoDuration = (ms: number) => `PT${Math.max(1, Math.round(ms / 1000))}S`;

/**
 * A result shown publicly (public, finished, neither hidden nor flagged): anyone can look at it, search engines
 * index it in every language with its structured data; any other does not exist (404).
 */
export async function loader({ context, request, params }: Route.LoaderArgs) {
  const { runtime, session } = serverContextOf(context);
  const db = runtime.database.db;
  const viewerId = session.viewer?.id ?? null;
  let generation;
  try {
    generation = await getGeneration({
      db,
      env: runtime.env,
      id: params.id,
      viewerId,
      allowPublic: true,
      chain: true,
    });
  } catch (error) {
    if (error instanceof AppError && error.code === "not_found") throw data(null, { status: 404 });
    throw error;
  }
  if (generation.visibility !== "public" || generation.status !== "succeeded") throw data(null, { status: 404 });
  const [result, remixes, related] = await Promise.all([
    getPublicResult({ db, id: generation.id, viewerId }),
    listRemixes({ db, id: generation.id, viewerId, limit: RELATED_SIZE }),
    listRelated({
      db,
      id: generation.id,
      prompt: generation.prompt,
      modelId: generation.model.id,
      viewerId,
      limit: RELATED_SIZE,
    }),
  ]);
  if (!result) throw data(null, { status: 404 });
  const output = generation.outputs[0];
  const locale = pathLocale(request);
  const { i18n, seo, site } = pageMeta(context, request, ["studio", "messages", "explore"], (t, site) => {
    const absolute = (path: string) => new URL(path, site.url).toString();
    const still = output ? (output.thumbUrl ?? (generation.kind === "image" ? output.url : null)) : null;
    const creator = result.creator
      ? { "@type": "Person", name: `@${result.creator.handle}`, alternateName: result.creator.name }
      : { "@type": "Organization", name: site.name, url: site.url };
    const common = {
      "@context": "https://schema.org",
      name: titleOf(generation.prompt),
      description: generation.prompt.slice(0, 500),
      caption: generation.prompt.slice(0, 500),
      ...(result.promptLang ? { inLanguage: result.promptLang } : {}),
      url: localizedUrl(site.url, `/share/${generation.id}`, locale),
      creator,
      creditText: result.creator ? `@${result.creator.handle} · ${site.name}` : site.name,
      datePublished: result.createdAt.toISOString(),
      isAccessibleForFree: true,
      interactionStatistic: {
        "@type": "InteractionCounter",
        interactionType: "https://schema.org/LikeAction",
        userInteractionCount: result.likes,
      },
    };
    const jsonLd = output
      ? generation.kind === "video"
        ? {
            ...common,
            "@type": "VideoObject",
            contentUrl: absolute(output.url),
            ...(still ? { thumbnailUrl: absolute(still) } : {}),
            uploadDate: result.createdAt.toISOString(),
            encodingFormat: output.mimeType,
            ...(output.durationMs ? { duration: isoDuration(output.durationMs) } : {}),
            ...(output.width && output.height ? { width: output.width, height: output.height } : {}),
          }
        : {
            ...common,
            "@type": "ImageObject",
            contentUrl: absolute(output.url),
            ...(still ? { thumbnailUrl: absolute(still) } : {}),
            uploadDate: result.createdAt.toISOString(),
            encodingFormat: output.mimeType,
            ...(output.width && output.height ? { width: output.width, height: output.height } : {}),
          }
      : null;
    return {
      title: t("explore:result.title", { prompt: titleOf(generation.prompt) }),
      description: t("explore:result.description", {
        prompt: generation.prompt.slice(0, 120),
        model: generation.model.name,
      }),
      image: (generation.kind === "image" ? output?.url : output?.thumbUrl) || undefined,
      jsonLd: jsonLd ? [jsonLd] : [],
    };
  });
  const named = (item: ExploreItem): ExploreCardItem => ({ ...item, model: runtime.models.nameOf(item.modelId) });
  return {
    seo,
    i18n,
    signedIn: viewerId !== null,
    explore: site.explore,
    generation: {
      id: generation.id,
      kind: generation.kind,
      tool: generation.tool,
      parent: generation.parent ?? null,
      prompt: generation.prompt,
      model: generation.model,
      params: generation.params,
      outputs: generation.outputs,
      mine: generation.mine,
      createdAt: result.createdAt.toISOString(),
    },
    result: {
      promptLang: result.promptLang,
      likes: result.likes,
      liked: result.liked,
      remixes: result.remixes,
      creator: result.creator,
      remixOf: result.remixOf,
    },
    remixes: remixes.map(named),
    related: related.map(named),
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

/** How it was made: the settings anyone may reuse by remixing it. */
function Settings({ params, kind }: { params: GenerationParams; kind: "image" | "video" }) {
  const { t } = useTranslation("studio");
  const rows: [string, string][] = [];
  rows.push([t("form.aspectRatio"), params.aspectRatio]);
  if (kind === "image" && params.count > 1) rows.push([t("form.count"), String(params.count)]);
  if (params.style) rows.push([t("form.style"), t(`styles.${params.style}.name`)]);
  if (params.duration) rows.push([t("form.duration"), t("seconds", { count: params.duration })]);
  if (params.resolution) rows.push([t("form.resolution"), params.resolution]);
  if (params.strength !== undefined) rows.push([t("form.strengthLabel"), `${Math.round(params.strength * 100)}%`]);
  if (params.seed !== undefined) rows.push([t("form.seed"), String(params.seed)]);
  return (
    <dl className="share-settings">
      {rows.map(([name, value]) => (
        <div key={name}>
          <dt>{name}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

export default function SharedGeneration({ loaderData, actionData }: Route.ComponentProps) {
  const { t } = useTranslation("studio");
  const { t: te } = useTranslation("explore");
  const { pathname } = useLocation();
  const { generation: g, result, signedIn } = loaderData;
  const report = actionData && !("like" in actionData) ? (actionData as ReportResult) : undefined;
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
          <Paragraph className="share-prompt" lang={result.promptLang ?? undefined} dir="auto">
            {g.prompt}
          </Paragraph>
          {result.creator && loaderData.explore && (
            <p className="share-creator">
              <Link to={hrefIn(pathname, `/u/${result.creator.handle}`)} data-testid="creator">
                {te("creator.by", { handle: result.creator.handle })}
              </Link>
            </p>
          )}
          {result.remixOf && (
            <p className="share-parent" data-testid="remix-of">
              <span>{te("result.remixOf")}</span>{" "}
              <Link to={hrefIn(pathname, `/share/${result.remixOf.id}`)} lang={undefined}>
                {result.remixOf.prompt.length > 80 ? `${result.remixOf.prompt.slice(0, 77)}…` : result.remixOf.prompt}
              </Link>
            </p>
          )}
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
          <Settings params={g.params} kind={g.kind} />
          <div className="share-actions">
            <LikeButton id={g.id} liked={result.liked} likes={result.likes} signedIn={signedIn} />
            <Link to={hrefIn(pathname, `${toolPath(g.tool)}?remix=${g.id}`)} data-testid="remix">
              <Button type="primary">{te("result.remix")}</Button>
            </Link>
            {result.remixes > 0 && (
              <span className="share-remix-count">{te("result.remixCount", { count: result.remixes })}</span>
            )}
          </div>
          <p className="share-verify">
            <time dateTime={g.createdAt}>{formatDate(localeOfPath(pathname), g.createdAt, { dateOnly: true })}</time>
            {" · "}
            <Link to={hrefIn(pathname, "/verify")}>{t("common:verifyLink")}</Link>
          </p>
          <ReportForm result={report} />
        </div>
      </div>
      {loaderData.remixes.length > 0 && (
        <section className="page-wide share-more" aria-labelledby="share-remixes">
          <h2 id="share-remixes">{te("result.remixes")}</h2>
          <ExploreGrid items={loaderData.remixes} signedIn={signedIn} />
        </section>
      )}
      {loaderData.related.length > 0 && (
        <section className="page-wide share-more" aria-labelledby="share-related">
          <h2 id="share-related">{te("result.related")}</h2>
          <ExploreGrid items={loaderData.related} signedIn={signedIn} />
          {loaderData.explore && (
            <p className="home-showcase-more">
              <Link to={hrefIn(pathname, "/explore")}>{te("result.explore")} →</Link>
            </p>
          )}
        </section>
      )}
    </AntdProvider>
  );
}
