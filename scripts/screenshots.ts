// `npm run screenshots -- <folder>`: starts the built server with a fresh data folder, signs up one account and
// photographs the pages whose looks must not drift (home, pricing, docs, a docs page, a missing page, sign-in, dashboard home, image studio, API
// keys) in light and dark, English and Japanese, on a phone and a desktop, into <folder>/<name>.png.
// `npm run screenshots -- --compare <before> <after>` then says how many pixels of each picture changed and writes
// the differences (changed pixels in red over a faded copy) beside the after folder.
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import sharp from "sharp";
import { freePort, startServer } from "#tests/support/server.ts";
import { launchBrowser } from "#tests/support/browser.ts";
import { signedIn } from "#tests/support/session.ts";
import { FLASH_COOKIE } from "#common/flash.ts";

const PAGES = [
  { name: "home", path: "/", signedIn: false },
  { name: "pricing", path: "/pricing", signedIn: false },
  { name: "docs", path: "/docs", signedIn: false },
  { name: "docs-page", path: "/docs/webhooks", signedIn: false },
  { name: "legal", path: "/legal/refund", signedIn: false },
  { name: "not-found", path: "/no/such/page", signedIn: false },
  { name: "sign-in", path: "/auth/login", signedIn: false },
  { name: "dashboard-home", path: "/dashboard/home", signedIn: true },
  { name: "image-studio", path: "/dashboard/image/create/text-to-image", signedIn: true },
  { name: "api-keys", path: "/dashboard/api", signedIn: true },
  { name: "profile", path: "/user/profile", signedIn: true },
  { name: "orders", path: "/user/orders", signedIn: true },
];
const VIEWPORTS = { desktop: { width: 1280, height: 900 }, phone: { width: 390, height: 844 } };
const SCHEMES = ["light", "dark"] as const;
const LOCALES = ["en", "ja"] as const;

async function take(outDir: string) {
  mkdirSync(outDir, { recursive: true });
  const port = await freePort();
  const [server, browser] = await Promise.all([
    startServer({ PORT: String(port), SITE_URL: `http://127.0.0.1:${port}`, LOG_LEVEL: "warn" }),
    launchBrowser(),
  ]);
  try {
    // The session alone: the one-time "signed in" toast would cover part of the first picture.
    const session = (await signedIn(server, server.url, "maker@example.com"))
      .split("; ")
      .filter((pair) => !pair.startsWith(`${FLASH_COOKIE}=`));

    for (const [device, viewport] of Object.entries(VIEWPORTS)) {
      for (const scheme of SCHEMES) {
        const context = await browser.newContext({ viewport, colorScheme: scheme });
        const cookies = [`theme=${scheme}`, ...session].map((pair) => {
          const i = pair.indexOf("=");
          return { name: pair.slice(0, i), value: pair.slice(i + 1), url: server.url };
        });
        for (const locale of LOCALES) {
          for (const p of PAGES) {
            await context.clearCookies();
            await context.addCookies(p.signedIn ? cookies : cookies.slice(0, 1));
            const page = await context.newPage();
            const problems: string[] = [];
            page.on("console", (m) => {
              if (m.type() === "error" || m.type() === "warning") problems.push(m.text());
            });
            await page.goto(`${server.url}${locale === "en" ? "" : `/${locale}`}${p.path}`, {
              waitUntil: "networkidle",
            });
            // Fonts and the end of entrance animations.
            await page.evaluate(() => document.fonts.ready);
            await page.waitForTimeout(900);
            const name = `${p.name}-${locale}-${scheme}-${device}`;
            await page.screenshot({ path: join(outDir, `${name}.png`), fullPage: true });
            if (problems.length) process.stdout.write(`${name}: ${problems.join(" | ")}\n`);
            await page.close();
          }
        }
        await context.close();
      }
    }
  } finally {
    await browser.close();
    await server.close();
  }
  process.stdout.write(`screenshots in ${outDir}\n`);
}

async function compare(beforeDir: string, afterDir: string) {
  const diffDir = `${afterDir.replace(/\/$/, "")}-diff`;
  mkdirSync(diffDir, { recursive: true });
  const rows: string[] = [];
  for (const file of readdirSync(beforeDir).filter((f) => f.endsWith(".png"))) {
    const [a, b] = await Promise.all(
      [join(beforeDir, file), join(afterDir, file)].map((f) =>
        sharp(f)
          .ensureAlpha()
          .raw()
          .toBuffer({ resolveWithObject: true })
          .catch(() => null),
      ),
    );
    if (!a || !b) {
      rows.push(`${file}: missing on one side`);
      continue;
    }
    const width = Math.max(a.info.width, b.info.width);
    const height = Math.max(a.info.height, b.info.height);
    const out = Buffer.alloc(width * height * 4);
    let changed = 0;
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const o = (y * width + x) * 4;
        const inA = x < a.info.width && y < a.info.height;
        const inB = x < b.info.width && y < b.info.height;
        const ia = (y * a.info.width + x) * 4;
        const ib = (y * b.info.width + x) * 4;
        let differs = !inA || !inB;
        if (!differs) {
          for (let c = 0; c < 3; c++) if (Math.abs(a.data[ia + c]! - b.data[ib + c]!) > 24) differs = true;
        }
        if (differs) {
          changed++;
          out.set([255, 0, 0, 255], o);
        } else {
          const g = Math.round((a.data[ia]! + a.data[ia + 1]! + a.data[ia + 2]!) / 3);
          out.set([g, g, g, 60], o);
        }
      }
    }
    const share = (100 * changed) / (width * height);
    if (changed > 0) {
      await sharp(out, { raw: { width, height, channels: 4 } })
        .png()
        .toFile(join(diffDir, file));
    }
    const size =
      a.info.width === b.info.width && a.info.height === b.info.height
        ? `${width}×${height}`
        : `${a.info.width}×${a.info.height} → ${b.info.width}×${b.info.height}`;
    rows.push(`${file}: ${share.toFixed(2)}% of pixels differ (${size})`);
  }
  const report = rows.join("\n");
  writeFileSync(join(diffDir, "report.txt"), `${report}\n`);
  process.stdout.write(`${report}\ndifferences in ${diffDir}\n`);
}

const args = process.argv.slice(2);
if (args[0] === "--compare" && args[1] && args[2]) await compare(resolve(args[1]), resolve(args[2]));
else if (args[0] && !args[0].startsWith("-")) await take(resolve(args[0]));
else {
  process.stderr.write("usage: npm run screenshots -- <folder> | --compare <before> <after>\n");
  process.exit(2);
}
