import { cloneElement, type ReactElement, type ReactNode } from "react";

const TAG = /<(\w+)>(.*?)<\/\1>/g;

/**
 * A translated sentence whose named tags (`I agree to the <terms>Terms</terms>`) are drawn by the given elements,
 * each with the tag's words inside; a tag with no element keeps its words as text. Only plain, unnested tags: what
 * the translations use, without the HTML parser react-i18next's `Trans` brings to the page.
 */
export function withTags(text: string, elements: Record<string, ReactElement>): ReactNode[] {
  const parts = text.split(TAG);
  const out: ReactNode[] = [];
  for (let i = 0; i < parts.length; i += 3) {
    if (parts[i]) out.push(parts[i]);
    const name = parts[i + 1];
    const words = parts[i + 2];
    if (name === undefined || words === undefined) continue;
    const element = elements[name];
    out.push(element ? cloneElement(element, { key: i }, words) : words);
  }
  return out;
}
