import { describe, expect, it } from "vitest";
import { renderToStaticMarkup } from "react-dom/server";
import { withTags } from "#app/i18n/tags.tsx";

const render = (text: string) =>
  renderToStaticMarkup(<>{withTags(text, { terms: <a href="/terms" />, privacy: <span /> })}</>);

describe("translations with tags", () => {
  it("draws each tag with its element and keeps the words around them", () => {
    expect(render("I agree to the <terms>Terms</terms> and the <privacy>Privacy Policy</privacy>.")).toBe(
      'I agree to the <a href="/terms">Terms</a> and the <span>Privacy Policy</span>.',
    );
  });

  it("starts and ends with tags, as some languages' sentences do", () => {
    expect(render("<terms>利用規約</terms>と<privacy>プライバシーポリシー</privacy>")).toBe(
      '<a href="/terms">利用規約</a>と<span>プライバシーポリシー</span>',
    );
  });

  it("leaves the words of an unknown tag as text, escaped like any text", () => {
    expect(render("<b>bold</b> & <terms>x</terms>")).toBe('bold &amp; <a href="/terms">x</a>');
  });
});
