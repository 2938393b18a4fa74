import { describe, expect, it } from "vitest";
import { openApiDocument } from "#server/api/v1/index.ts";
import { buildApiReference, type ReferenceField, type ReferenceOperation } from "./api-reference.ts";

const ORIGIN = "https://atelier.example";
const METHODS = ["get", "put", "post", "delete", "patch"];

const served = openApiDocument(ORIGIN) as unknown as {
  paths: Record<string, Record<string, unknown>>;
  webhooks: Record<string, Record<string, unknown>>;
};
const reference = buildApiReference(served, "en");
const operations = reference.groups.flatMap((g) => g.operations);
const operation = (method: string, path: string) =>
  operations.find((o) => o.method === method && o.path === path && !o.webhook)!;
const field = (fields: ReferenceField[] | undefined, name: string) => fields?.find((f) => f.name === name);

/** A document of one operation whose request body is `schema`, with `schemas` as its components. */
const single = (schema: object, schemas: Record<string, object> = {}, extra: object = {}) => ({
  openapi: "3.1.0",
  info: { title: "Test", version: "1" },
  paths: {
    "/things": {
      post: {
        summary: "Make a thing",
        requestBody: { content: { "application/json": { schema } } },
        responses: { 200: { description: "Made." } },
        ...extra,
      },
    },
  },
  components: { schemas },
});
const bodyOf = (doc: object) =>
  buildApiReference(doc, "en").groups[0]!.operations[0]!.body!.contents[0]!.shape as {
    fields: ReferenceField[];
  };

describe("the API reference made from the served OpenAPI document", () => {
  it("lists every operation and webhook once, grouped by tag in the document's order", () => {
    const expected = [
      ...Object.entries(served.paths).flatMap(([path, item]) =>
        METHODS.filter((m) => item[m]).map((m) => `${m.toUpperCase()} ${path}`),
      ),
      ...Object.keys(served.webhooks).map((name) => `POST ${name}`),
    ];
    expect(operations.map((o) => `${o.method} ${o.path}`)).toEqual(expected);
    expect(reference.groups.map((g) => g.name)).toEqual([
      "Models",
      "Generations",
      "Credits",
      "OpenAI-compatible API",
      "Webhooks",
    ]);
    expect(new Set(operations.map((o) => o.id)).size).toBe(operations.length);
    expect(reference.baseUrl).toBe(`${ORIGIN}/api/v1`);
  });

  it("describes parameters, the request body with its rules, and the main answer", () => {
    const list = operation("GET", "/generations");
    const query = list.parameters.find((p) => p.location === "query")!.fields;
    expect(field(query, "limit")).toMatchObject({
      type: "integer",
      required: false,
      default: "24",
      range: { min: 1, max: 100, of: "value" },
    });
    expect(field(query, "status")!.values).toContain("succeeded");
    expect(operation("GET", "/generations/{id}").parameters[0]).toMatchObject({
      location: "path",
      fields: [{ name: "id", required: true, type: "string" }],
    });

    const image = operation("POST", "/images");
    expect(image.auth[0]!.usage).toBe("Authorization: Bearer <token>");
    expect(image.body!.contents.map((c) => c.mediaType)).toEqual(["application/json", "multipart/form-data"]);
    const json = image.body!.contents[0]!.shape.fields;
    // Optional as a field: the tools that read none take none
    expect(field(json, "prompt")).toMatchObject({ required: false, range: { max: 2000, of: "length" } });
    expect(field(json, "tool")!.values).toEqual([
      "text-to-image",
      "image-to-image",
      "inpaint",
      "outpaint",
      "upscale",
      "remove-background",
    ]);
    expect(field(json, "aspect_ratio")).toMatchObject({
      required: false,
      values: ["1:1", "4:3", "3:4", "16:9", "9:16"],
    });
    // The multipart form is the JSON body plus the files
    const form = image.body!.contents[1]!.shape.fields!;
    expect(form.map((f) => f.name)).toEqual([...json!.map((f) => f.name), "image", "mask"]);
    expect(field(form, "image")).toMatchObject({ type: "string", format: "binary" });
    // Two literal choices read as one set of values
    expect(field(operation("POST", "/videos").body!.contents[0]!.shape.fields, "duration")).toMatchObject({
      values: ["5", "10"],
      default: "5",
    });

    // A body used by one operation is shown there; the generation, used by many, is linked to its description
    const credits = operation("GET", "/credits").responses.find((r) => r.status === "200")!;
    expect(credits.shape!.fields!.map((f) => f.name)).toEqual(["object", "balance", "held", "available", "expiring"]);
    expect(image.responses.find((r) => r.status === "201")!.shape).toEqual({
      type: "Generation",
      link: "object-generation",
    });
    const models = operation("GET", "/models").responses[0]!.shape!;
    expect(field(models.fields, "data")).toMatchObject({ type: "Model[]" });
    expect(field(field(models.fields, "data")!.fields, "price")!.fields!.map((f) => f.name)).toEqual([
      "unit",
      "credits",
      "multipliers",
      "minimum",
    ]);
    expect(reference.objects.map((o) => o.name)).toEqual(["Error", "Generation"]);
    const generation = reference.objects[1]!.shape.fields!;
    expect(field(generation, "outputs")).toMatchObject({ type: "object[]", required: true });
    expect(field(field(generation, "outputs")!.fields, "url")).toMatchObject({ type: "string", format: "uri" });
    expect(field(generation, "error")!.type).toBe("object | null");
  });

  it("writes a curl command per operation and the request a webhook receiver gets", () => {
    const curl = (o: ReferenceOperation) => o.example;
    expect(curl(operation("GET", "/models"))).toBe(
      `curl ${ORIGIN}/api/v1/models \\\n  -H "Authorization: Bearer $ATELIER_API_KEY"`,
    );
    // The OpenAI-compatible API's paths are on their own server, the site's origin.
    expect(curl(operation("GET", "/v1/models"))).toBe(
      `curl ${ORIGIN}/v1/models \\\n  -H "Authorization: Bearer $ATELIER_API_KEY"`,
    );
    expect(curl(operation("POST", "/images"))).toBe(
      [
        `curl ${ORIGIN}/api/v1/images`,
        `-H "Authorization: Bearer $ATELIER_API_KEY"`,
        `-H "Content-Type: application/json"`,
        `-d '{ "model": "demo-image", "prompt": "A lighthouse at dusk, oil painting" }'`,
      ].join(" \\\n  "),
    );
    expect(curl(operation("DELETE", "/generations/{id}"))).toMatch(
      /^curl -X DELETE https:\/\/atelier\.example\/api\/v1\/generations\/6e1d2b7a-3c1f-4d8e-9a55-0c3b2f1e4d6a \\/,
    );
    expect(curl(operation("POST", "/generations/{id}/cancel"))).toMatch(/^curl -X POST .*\/cancel \\/);

    const failed = operations.find((o) => o.webhook && o.path === "generation.failed")!;
    expect(failed.auth).toEqual([]);
    const [head, body] = failed.example.split("\n\n") as [string, string];
    expect(head.split("\n")[0]).toBe("POST <webhook_url>");
    expect(head).toMatch(/^webhook-signature: v1,/m);
    expect(JSON.parse(body)).toMatchObject({ type: "generation.failed", data: { status: "failed" } });
  });

  it("renders the document's Markdown with raw HTML escaped", () => {
    const doc = single(
      { type: "object", properties: { name: { type: "string", description: "<img src=x onerror=alert(1)> `code`" } } },
      {},
      { description: "**Bold** <script>alert(1)</script> [link](javascript:alert(1))" },
    );
    const op = buildApiReference(doc, "en").groups[0]!.operations[0]!;
    expect(op.description).toContain("<strong>Bold</strong> &lt;script&gt;");
    expect(op.description).not.toContain('href="javascript:');
    expect(bodyOf(doc).fields[0]!.description).toBe("&lt;img src=x onerror=alert(1)&gt; <code>code</code>");
  });

  it("links a schema that refers to itself instead of drawing it forever, and keeps site links in the language", () => {
    const doc = single(
      { $ref: "#/components/schemas/Node" },
      {
        Node: {
          type: "object",
          description: "See the [guide](/docs/api).",
          properties: { children: { type: "array", items: { $ref: "#/components/schemas/Node" } } },
        },
      },
    );
    const ja = buildApiReference(doc, "ja");
    expect(bodyOf(doc).fields[0]).toMatchObject({ name: "children", type: "Node[]", link: "object-node" });
    expect(ja.objects.map((o) => o.name)).toEqual(["Node"]);
    expect(ja.objects[0]!.shape.description).toContain('href="/ja/docs/api"');
  });

  it("draws the document in the reader's language, with the same anchors as in English", () => {
    const german = buildApiReference(openApiDocument(ORIGIN, "de"), "de");
    expect(german.groups.map((g) => g.id)).toEqual(reference.groups.map((g) => g.id));
    expect(german.groups.map((g) => g.name)).toEqual([
      "Modelle",
      "Generierungen",
      "Credits",
      "OpenAI-kompatible API",
      "Webhooks",
    ]);
    const ops = german.groups.flatMap((g) => g.operations);
    expect(ops.map((o) => o.id)).toEqual(operations.map((o) => o.id));
    const image = ops.find((o) => o.id === "post-images")!;
    expect(image.summary).toBe("Bildgenerierung erstellen");
    expect(image.description).toContain("Text zu Bild");
    expect(image.responses.find((r) => r.status === "402")!.description).toContain("Nicht genug verfügbare Credits");
  });
});
