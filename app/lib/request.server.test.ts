import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { formOf } from "#app/lib/request.server.ts";

const post = (type: string | undefined, body?: string) =>
  new Request("http://atelier.test/auth/login", {
    method: "POST",
    headers: type ? { "Content-Type": type } : {},
    body,
  });

async function refusal(request: Request): Promise<unknown> {
  return formOf(request).then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe("formOf", () => {
  it("reads URL-encoded and multipart forms", async () => {
    const encoded = await formOf(post("application/x-www-form-urlencoded; charset=UTF-8", "email=a%40b.c&x=%zz"));
    expect(encoded.get("email")).toBe("a@b.c");
    const multipart = new FormData();
    multipart.set("code", "GIFT-1");
    const request = new Request("http://atelier.test/user/orders", { method: "POST", body: multipart });
    expect((await formOf(request)).get("code")).toBe("GIFT-1");
  });

  it("refuses any other body with a 400 response, not an error", async () => {
    for (const request of [
      post("application/json", '{"email":"a@b.c"}'),
      post("text/plain", "email=a@b.c"),
      post(undefined),
      post("multipart/form-data; boundary=xyz", "garbage"),
      post("multipart/form-data", "--xyz\r\nbroken"),
      post("Application/X-Www-Form-Urlencodedx", "a=1"),
    ]) {
      const error = await refusal(request);
      // What `data(null, { status: 400 })` throws: React Router answers it with that status and the error page.
      expect(error, request.headers.get("content-type") ?? "none").toMatchObject({ init: { status: 400 } });
    }
  });

  it("is how every page action reads its form", () => {
    const direct: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (/\.tsx?$/.test(entry.name) && /\.formData\(\)/.test(readFileSync(path, "utf8"))) direct.push(path);
      }
    };
    walk(join(import.meta.dirname, "../routes"));
    expect(direct).toEqual([]);
  });
});
