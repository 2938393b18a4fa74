import { Fragment, type ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { clsx } from "clsx";
import LockOutlined from "@ant-design/icons-svg/es/asn/LockOutlined";
import SendOutlined from "@ant-design/icons-svg/es/asn/SendOutlined";
import { Icon } from "#app/components/ui/icon.tsx";
import { Tag } from "#app/components/ui/display.tsx";
import type {
  ApiReference,
  AuthNote,
  ReferenceField,
  ReferenceOperation,
  ReferenceShape,
} from "#server/modules/content/api-reference.ts";

// The reference drawn on the server from the OpenAPI document in the reader's language. Its texts are the document's
// own; descriptions are its Markdown rendered on the server with raw HTML disabled. Paths, examples and the names of
// objects are code, marked `lang="en"`.

type TagColor = "blue" | "green" | "gold" | "red" | "purple" | "success" | "warning" | "error";

const METHOD_COLORS: Record<string, TagColor> = {
  GET: "blue",
  POST: "green",
  PUT: "gold",
  PATCH: "gold",
  DELETE: "red",
};

const statusColor = (status: string): TagColor | undefined =>
  status.startsWith("2")
    ? "success"
    : status.startsWith("4")
      ? "warning"
      : status.startsWith("5")
        ? "error"
        : undefined;

/** HTML made on the server from the document's Markdown (raw HTML disabled there). */
function Prose({ html, inline = false, className }: { html: string; inline?: boolean; className?: string }) {
  const Tag = inline ? "span" : "div";
  return <Tag className={className} dangerouslySetInnerHTML={{ __html: html }} />;
}

function Method({ method }: { method: string }) {
  return (
    <Tag color={METHOD_COLORS[method]} className="api-method">
      {method}
    </Tag>
  );
}

/** A type, linked to its object when that is described below. */
function TypeName({ shape }: { shape: ReferenceShape }) {
  return (
    <span className="api-type">
      {shape.link ? <a href={`#${shape.link}`}>{shape.type}</a> : shape.type}
      {shape.format && <span className="api-format">{shape.format}</span>}
    </span>
  );
}

/** Allowed values, default and limits of a field. */
function Facts({ shape }: { shape: ReferenceShape }) {
  const { t } = useTranslation("docs");
  const facts: ReactNode[] = [];
  const range = shape.range;
  if (range) {
    // `between`, `min`, `max`; for a text's length `lengthBetween`, `lengthMin`, `lengthMax`
    const bound = range.min === undefined ? "Max" : range.max === undefined ? "Min" : "Between";
    const key = range.of === "length" ? `length${bound}` : bound.toLowerCase();
    facts.push(<span key="range">{t(`reference.range.${key}`, range)}</span>);
  }
  if (shape.values) {
    facts.push(
      <span key="values">
        {t("reference.values")}:{" "}
        {shape.values.map((v, i) => (
          <Fragment key={v}>
            {i > 0 && " "}
            <code>{v}</code>
          </Fragment>
        ))}
      </span>,
    );
  }
  if (shape.default !== undefined) {
    facts.push(
      <span key="default">
        {t("reference.default")}: <code>{shape.default}</code>
      </span>,
    );
  }
  return facts.length > 0 ? <div className="api-facts">{facts}</div> : null;
}

function Fields({ fields }: { fields: ReferenceField[] }) {
  const { t } = useTranslation("docs");
  return (
    <ul className="api-fields">
      {fields.map((f) => (
        <li key={f.name} className="api-field">
          <div className="api-field-head">
            <code className="api-field-name">{f.name}</code>
            <TypeName shape={f} />
            {f.required && <span className="api-required">{t("reference.required")}</span>}
          </div>
          {f.description && <Prose html={f.description} className="api-field-description" />}
          <Facts shape={f} />
          {f.fields && !f.link && <Fields fields={f.fields} />}
        </li>
      ))}
    </ul>
  );
}

/** A schema: its fields when it has some, else its type with what is known of it. */
function Shape({ shape }: { shape: ReferenceShape }) {
  if (shape.fields && !shape.link) return <Fields fields={shape.fields} />;
  return (
    <div className="api-shape">
      <TypeName shape={shape} />
      {shape.description && <Prose html={shape.description} className="api-field-description" />}
      <Facts shape={shape} />
    </div>
  );
}

/** How to authenticate (`Authorization: Bearer …`), and what the document says of it. */
function AuthNoteText({ note }: { note: AuthNote }) {
  return (
    <>
      <code>{note.usage}</code>
      {note.description && (
        <>
          {" · "}
          <Prose inline html={note.description} />
        </>
      )}
    </>
  );
}

function Auth({ notes }: { notes: AuthNote[] }) {
  const { t } = useTranslation("docs");
  return (
    <p className="api-note">
      <Icon icon={LockOutlined} aria-hidden />
      <span>
        <strong>{t("reference.auth")}</strong>{" "}
        {notes.map((n) => (
          <span key={n.usage}>
            <AuthNoteText note={n} />
          </span>
        ))}
      </span>
    </p>
  );
}

function Operation({ op }: { op: ReferenceOperation }) {
  const { t } = useTranslation("docs");
  const [first, ...others] = op.body?.contents ?? [];
  return (
    <section className="api-op" id={op.id} aria-labelledby={`${op.id}-title`}>
      <h3 className="api-op-title" id={`${op.id}-title`}>
        <a href={`#${op.id}`}>{op.summary}</a>
      </h3>
      <p className="api-endpoint">
        <Method method={op.method} />
        {/* A webhook's summary is usually its event's name already */}
        {op.path !== op.summary && <code lang="en">{op.path}</code>}
        {op.webhook && (
          <span className="api-note">
            <Icon icon={SendOutlined} aria-hidden />
            <span>{t("reference.webhook")}</span>
          </span>
        )}
      </p>
      {op.description && <Prose html={op.description} className="docs-prose api-op-description" />}
      {op.auth.length > 0 && <Auth notes={op.auth} />}
      {op.parameters.map((p) => (
        <Fragment key={p.location}>
          <h4 className="api-subtitle">{t(`reference.in.${p.location}`)}</h4>
          <Fields fields={p.fields} />
        </Fragment>
      ))}
      {first && (
        <>
          <h4 className="api-subtitle">
            <span>{t("reference.requestBody")}</span>
            <code className="api-media">{first.mediaType}</code>
            {op.body!.required && <span className="api-required">{t("reference.required")}</span>}
          </h4>
          <Shape shape={first.shape} />
          {others.map((c) => (
            <details key={c.mediaType} className="api-alternative">
              <summary>
                <code className="api-media">{c.mediaType}</code>
              </summary>
              <Shape shape={c.shape} />
            </details>
          ))}
        </>
      )}
      <h4 className="api-subtitle">{t("reference.responses")}</h4>
      <ul className="api-responses">
        {op.responses.map((r) => (
          <li key={r.status} className="api-response">
            <div className="api-response-head">
              <Tag color={statusColor(r.status)} className="api-status">
                {r.status}
              </Tag>
              <Prose inline html={r.description} />
              {r.shape && !r.shape.fields && <TypeName shape={r.shape} />}
            </div>
            {r.shape?.fields && <Shape shape={r.shape} />}
          </li>
        ))}
      </ul>
      <h4 className="api-subtitle">{t("reference.example")}</h4>
      <pre className="code-block" data-example={op.webhook ? "http" : "curl"} lang="en">
        <code>{op.example}</code>
      </pre>
    </section>
  );
}

function Contents({ reference }: { reference: ApiReference }) {
  const { t } = useTranslation("docs");
  return (
    <ul>
      <li>
        <a href="#overview">{t("reference.overview")}</a>
      </li>
      {reference.groups.map((g) => (
        <li key={g.id}>
          <a href={`#${g.id}`} className="api-toc-group">
            {g.name}
          </a>
          <ul>
            {g.operations.map((op) => (
              <li key={op.id}>
                <a href={`#${op.id}`}>
                  <span className={clsx("api-toc-method", `api-toc-${op.method.toLowerCase()}`)}>{op.method}</span>
                  {op.summary}
                </a>
              </li>
            ))}
          </ul>
        </li>
      ))}
      {reference.objects.length > 0 && (
        <li>
          <a href="#objects" className="api-toc-group">
            {t("reference.objects")}
          </a>
          <ul>
            {reference.objects.map((o) => (
              <li key={o.id}>
                <a href={`#${o.id}`} lang="en">
                  {o.name}
                </a>
              </li>
            ))}
          </ul>
        </li>
      )}
    </ul>
  );
}

/** The table of contents for the side of a wide screen, and folded at the top of a narrow one. */
export function ApiReferenceContents({ reference, variant }: { reference: ApiReference; variant: "side" | "top" }) {
  const { t } = useTranslation("docs");
  if (variant === "top") {
    return (
      <details className="api-jump">
        <summary>{t("page.toc")}</summary>
        <nav aria-label={t("page.toc")}>
          <Contents reference={reference} />
        </nav>
      </details>
    );
  }
  return (
    <nav className="docs-toc api-toc" aria-labelledby="api-toc-title">
      <p id="api-toc-title" className="docs-toc-title">
        {t("page.toc")}
      </p>
      <Contents reference={reference} />
    </nav>
  );
}

export function ApiReferenceBody({ reference }: { reference: ApiReference }) {
  const { t } = useTranslation("docs");
  return (
    <>
      <section id="overview" className="api-overview" aria-labelledby="overview-title">
        <h2 id="overview-title">{t("reference.overview")}</h2>
        <dl className="api-facts-list">
          <dt>{t("reference.baseUrl")}</dt>
          <dd>
            <code>{reference.baseUrl}</code>
          </dd>
          <dt>{t("reference.version")}</dt>
          <dd>
            <code>{reference.version}</code>
          </dd>
          {reference.auth.length > 0 && (
            <>
              <dt>{t("reference.auth")}</dt>
              {reference.auth.map((n) => (
                <dd key={n.usage}>
                  <AuthNoteText note={n} />
                </dd>
              ))}
            </>
          )}
        </dl>
        {reference.description && <Prose html={reference.description} className="docs-prose" />}
      </section>
      {reference.groups.map((g) => (
        <section key={g.id} id={g.id} className="api-group" aria-labelledby={`${g.id}-title`}>
          <h2 id={`${g.id}-title`}>{g.name}</h2>
          {g.description && <Prose html={g.description} className="docs-prose" />}
          {g.operations.map((op) => (
            <Operation key={op.id} op={op} />
          ))}
        </section>
      ))}
      {reference.objects.length > 0 && (
        <section id="objects" className="api-group" aria-labelledby="objects-title">
          <h2 id="objects-title">{t("reference.objects")}</h2>
          <p className="api-group-intro">{t("reference.objectsIntro")}</p>
          {reference.objects.map((o) => (
            <section key={o.id} id={o.id} className="api-object" aria-labelledby={`${o.id}-title`}>
              <h3 className="api-op-title" id={`${o.id}-title`} lang="en">
                <a href={`#${o.id}`}>{o.name}</a>
              </h3>
              {o.shape.description && <Prose html={o.shape.description} className="api-field-description" />}
              <Shape shape={{ ...o.shape, description: undefined }} />
            </section>
          ))}
        </section>
      )}
    </>
  );
}
