import sharp from "sharp";
import type { Locale } from "#common/locales.ts";
import { escapeHtml } from "#common/html.ts";

export const SHARE_IMAGE_WIDTH = 1200;
export const SHARE_IMAGE_HEIGHT = 630;

// Fonts by script, the reader's language first: Chinese, Japanese and Korean share code points drawn differently.
const CJK: Partial<Record<Locale, string>> = {
  zh: "Noto Sans CJK SC",
  ja: "Noto Sans CJK JP",
  ko: "Noto Sans CJK KR",
};
const FALLBACK = [
  "Noto Sans",
  "Noto Sans CJK SC",
  "Noto Sans CJK JP",
  "Noto Sans CJK KR",
  "DejaVu Sans",
  "Liberation Sans",
  "sans-serif",
];

const fontsFor = (locale: Locale) => [...(CJK[locale] ? [CJK[locale]] : []), ...FALLBACK].join(", ");

/** About how wide a character is, in ems: full-width scripts one, capitals and wide letters more than the rest. */
function emWidth(char: string): number {
  if (/[\u1100-\u11ff\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]/u.test(char)) return 1;
  if (/[ilI.,:;'’!|]/.test(char)) return 0.3;
  if (/[A-ZМШЩЖЮmwMW@]/.test(char)) return 0.78;
  return 0.58;
}

/**
 * The title in lines that fit `maxEms` each: broken at spaces, or between any two full-width characters (Chinese and
 * Japanese have no spaces); at most `maxLines`, the last one ending with an ellipsis when the title is longer.
 */
export function wrapTitle(title: string, maxEms: number, maxLines: number): string[] {
  const tokens = title.match(/[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef][、。，：；！？」』）]?|\S+|\s+/gu) ?? [];
  const lines: string[] = [];
  let line = "";
  let width = 0;
  for (const token of tokens) {
    const w = [...token].reduce((sum, c) => sum + emWidth(c), 0);
    if (/^\s+$/.test(token)) {
      if (line) {
        line += " ";
        width += 0.3;
      }
      continue;
    }
    if (width + w > maxEms && line.trim()) {
      lines.push(line.trimEnd());
      line = "";
      width = 0;
    }
    line += token;
    width += w;
  }
  if (line.trim()) lines.push(line.trimEnd());
  if (lines.length <= maxLines) return lines;
  const kept = lines.slice(0, maxLines);
  kept[maxLines - 1] = `${kept[maxLines - 1]!.replace(/\s*\S{0,3}$/u, "")}…`;
  return kept;
}

/**
 * A page's picture for link previews (Open Graph, Twitter): its title in large type and what kind of page it is on
 * the site's colour, with the site's name, as SVG.
 */
export function shareImageSvg(options: {
  title: string;
  label: string;
  site: string;
  color: string;
  locale: Locale;
}): string {
  const fonts = escapeHtml(fontsFor(options.locale));
  let size = 72;
  let lines = wrapTitle(options.title, (SHARE_IMAGE_WIDTH - 160) / size, 3);
  if (lines.length === 3) {
    size = 60;
    lines = wrapTitle(options.title, (SHARE_IMAGE_WIDTH - 160) / size, 4);
  }
  const lineHeight = Math.round(size * 1.22);
  const top = 330 - ((lines.length - 1) * lineHeight) / 2;
  const color = /^#[0-9a-f]{6}$/i.test(options.color) ? options.color : "#4f46e5";
  const text = lines
    .map((line, i) => `<tspan x="80" y="${Math.round(top + i * lineHeight)}">${escapeHtml(line)}</tspan>`)
    .join("");
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${SHARE_IMAGE_WIDTH}" height="${SHARE_IMAGE_HEIGHT}" viewBox="0 0 ${SHARE_IMAGE_WIDTH} ${SHARE_IMAGE_HEIGHT}">
<defs><linearGradient id="bg" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${color}"/><stop offset="1" stop-color="#111827"/></linearGradient></defs>
<rect width="${SHARE_IMAGE_WIDTH}" height="${SHARE_IMAGE_HEIGHT}" fill="url(#bg)"/>
<circle cx="1090" cy="110" r="190" fill="#ffffff" fill-opacity="0.06"/>
<circle cx="1160" cy="560" r="140" fill="#ffffff" fill-opacity="0.05"/>
<rect x="80" y="72" width="56" height="56" rx="14" fill="#ffffff"/>
<path d="M97 118 L108 84 L119 118 M101 106 H115" stroke="${color}" stroke-width="5" fill="none" stroke-linecap="round" stroke-linejoin="round"/>
<text x="152" y="112" font-family="${fonts}" font-size="34" font-weight="700" fill="#ffffff">${escapeHtml(options.site)}</text>
<text font-family="${fonts}" font-size="${size}" font-weight="700" fill="#ffffff">${text}</text>
<text x="80" y="562" font-family="${fonts}" font-size="30" fill="#ffffff" fill-opacity="0.8">${escapeHtml(options.label)}</text>
</svg>`;
}

/** The share picture as PNG. */
export async function renderShareImage(options: Parameters<typeof shareImageSvg>[0]): Promise<Buffer> {
  return sharp(Buffer.from(shareImageSvg(options)))
    .png({ compressionLevel: 9, palette: false })
    .toBuffer();
}
