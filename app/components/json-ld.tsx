/**
 * Structured data (schema.org JSON-LD) written in the page's body from what the page already has to draw it, so it
 * costs no hydration data of its own. Never run by the browser; `<` escaped so no text can close the element.
 */
export function JsonLd({ data }: { data: Record<string, unknown> }) {
  return (
    <script
      type="application/ld+json"
      dangerouslySetInnerHTML={{ __html: JSON.stringify(data).replace(/</g, "\\u003c") }}
    />
  );
}
