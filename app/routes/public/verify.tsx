import { useTranslation } from "react-i18next";
import { data, Form, Link, useLocation, useNavigation } from "react-router";
import type { Route } from "./+types/verify";
import { seoMeta } from "#app/seo.ts";
import { pageMeta } from "#app/lib/page.server.ts";
import { formOf, serverContextOf } from "#app/lib/request.server.ts";
import { Button } from "#app/components/ui/button.tsx";
import { Alert, Card, Tag } from "#app/components/ui/display.tsx";
import { FormItem } from "#app/components/ui/form.tsx";
import { Paragraph, Title } from "#app/components/ui/typography.tsx";
import { readProvenance, type ProvenanceReading } from "#server/modules/provenance/read-provenance.ts";
import type { C2paReading } from "#server/media/c2pa.ts";
import { formatDate } from "#common/format.ts";
import { hrefIn, localeOfPath } from "#common/locales.ts";

export const meta = ({ loaderData }: Route.MetaArgs) => seoMeta(loaderData?.seo);

/**
 * `/verify`: anyone chooses a file (before the page's scripts too: a plain form) and reads what it says about its
 * making: the IPTC digital source type of its XMP, the tool and AI system named, when, and which generation of this
 * site it is, with its public page when it has one; and its C2PA manifest, whether it still validates and who signed
 * it (whose certificate is not checked against a trust list: the page says so). The file is only read, never kept.
 */
export async function loader({ context, request }: Route.LoaderArgs) {
  const { i18n, seo, site } = pageMeta(context, request, ["verify"], (t, s) => ({
    title: t("verify:title"),
    description: t("verify:description", { site: s.name }),
  }));
  return { i18n, seo, site: site.name };
}

export async function action({ context, request }: Route.ActionArgs) {
  const { runtime } = serverContextOf(context);
  const form = await formOf(request);
  const file = form.get("file");
  if (!(file instanceof File) || file.size === 0)
    return data({ error: "noFile" as const, reading: null, name: null }, { status: 400 });
  const reading = await readProvenance({ db: runtime.database.db, bytes: new Uint8Array(await file.arrayBuffer()) });
  const locale = localeOfPath(new URL(request.url).pathname);
  const made =
    reading.createdAt && !Number.isNaN(Date.parse(reading.createdAt)) ? formatDate(locale, reading.createdAt) : null;
  return { error: null, reading: { ...reading, createdText: made }, name: file.name.slice(0, 200) };
}

function Fact({ label, value }: { label: string; value: React.ReactNode }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd>{value}</dd>
    </div>
  );
}

function Reading({
  reading,
  name,
  site,
}: {
  reading: ProvenanceReading & { createdText: string | null };
  name: string;
  site: string;
}) {
  const { t } = useTranslation("verify");
  const { pathname } = useLocation();
  const verdict = reading.aiMade
    ? { type: "info" as const, title: t(`result.${reading.aiMade}`) }
    : reading.sourceType
      ? { type: "warning" as const, title: t("result.otherSource", { type: reading.sourceType }) }
      : { type: "warning" as const, title: t("result.none") };
  return (
    <Card
      title={t("result.title", { name })}
      className="verify-result"
      data-verdict={reading.aiMade ?? (reading.sourceType ? "other" : "none")}
    >
      <Alert type={verdict.type} title={verdict.title} className="verify-verdict" />
      {!reading.sourceType && <Paragraph className="verify-note">{t("result.noneNote")}</Paragraph>}
      <dl className="verify-facts">
        <Fact label={t("fields.format")} value={t(`formats.${reading.format}`)} />
        {reading.sourceType && <Fact label={t("fields.sourceType")} value={<code>{reading.sourceType}</code>} />}
        {reading.creatorTool && <Fact label={t("fields.creatorTool")} value={reading.creatorTool} />}
        {reading.model && <Fact label={t("fields.model")} value={reading.model} />}
        {reading.createdText && <Fact label={t("fields.createdAt")} value={reading.createdText} />}
        {reading.generationId && (
          <Fact
            label={t("fields.generation")}
            value={
              <span data-generation={reading.generationId}>
                <code>{reading.generationId}</code>{" "}
                {reading.known ? (
                  <Tag color="green">{t("result.known", { site })}</Tag>
                ) : (
                  <Tag>{t("result.unknown", { site })}</Tag>
                )}
              </span>
            }
          />
        )}
      </dl>
      {reading.sharePath && (
        <Paragraph>
          <Link to={hrefIn(pathname, reading.sharePath)} data-share>
            {t("result.openShare")}
          </Link>
        </Paragraph>
      )}
      <Credentials c2pa={reading.c2pa} />
    </Card>
  );
}

/** The file's C2PA manifest: none, valid, or not (changed after signing, or otherwise), and who signed it. */
function Credentials({ c2pa }: { c2pa: C2paReading }) {
  const { t } = useTranslation("verify");
  const state = !c2pa.present
    ? "none"
    : c2pa.valid === null
      ? "unchecked"
      : c2pa.valid
        ? "valid"
        : c2pa.changed
          ? "changed"
          : "invalid";
  const type = state === "valid" ? "success" : state === "changed" || state === "invalid" ? "error" : "info";
  return (
    <section className="verify-c2pa" data-c2pa={state}>
      <Title level={2}>{t("c2pa.title")}</Title>
      <Alert type={type} title={t(`c2pa.${state}`)} />
      {c2pa.signer && (
        <>
          <dl className="verify-facts">
            <Fact label={t("fields.signer")} value={c2pa.signer.name} />
            <Fact label={t("fields.issuer")} value={c2pa.signer.issuer} />
            {c2pa.statusCodes.length > 0 && (
              <Fact
                label={t("fields.statusCodes")}
                value={c2pa.statusCodes.map((code, i) => (
                  <code key={i} className="verify-code">
                    {code}
                  </code>
                ))}
              />
            )}
          </dl>
          <Paragraph className="verify-note">{t("c2pa.trustNote", { signer: c2pa.signer.name })}</Paragraph>
        </>
      )}
    </section>
  );
}

export default function VerifyPage({ loaderData, actionData }: Route.ComponentProps) {
  const { t } = useTranslation("verify");
  const navigation = useNavigation();
  return (
    <div className="page-narrow verify-page">
      <Title level={1}>{t("title")}</Title>
      <Paragraph>{t("intro", { site: loaderData.site })}</Paragraph>
      <Form method="post" encType="multipart/form-data" className="verify-form" reloadDocument={false}>
        <FormItem
          label={t("file")}
          htmlFor="verify-file"
          error={actionData?.error === "noFile" ? t("noFile") : undefined}
          extra={t("kept")}
        >
          <input
            id="verify-file"
            name="file"
            type="file"
            accept="image/png,image/jpeg,image/webp,video/mp4,.png,.jpg,.jpeg,.webp,.mp4"
          />
        </FormItem>
        <Button type="primary" htmlType="submit" loading={navigation.state === "submitting"}>
          {t("submit")}
        </Button>
      </Form>
      {actionData?.reading && actionData.name !== null && (
        <Reading reading={actionData.reading} name={actionData.name} site={loaderData.site} />
      )}
    </div>
  );
}
