import { eq, sql } from "drizzle-orm";
import type { Logger } from "pino";
import type { Db } from "#server/db/client.ts";
import { appSetting, plan } from "#server/db/schema/index.ts";
import type { SiteConfig } from "#config/site.ts";
import { settingsSchema, type Settings } from "./schema.ts";

/** The row the console's settings live in: only the sections an operator saved, over the configured defaults. */
export const SETTINGS_KEY = "console_settings";

/** How often a process reads the settings again, for the changes made in another process. */
const REFRESH_MS = 10_000;

/** The content checks before an operator sets them: the standard level, no block list. */
export const DEFAULT_SAFETY: Settings["safety"] = { level: "standard", blockList: {} };

/** The settings before any is saved: the configuration's bonus and packs, no banner, no maintenance, no label. */
export function defaultSettings(site: Pick<SiteConfig, "signupBonusCredits" | "packs">): Settings {
  return {
    signupBonusCredits: site.signupBonusCredits,
    packs: site.packs,
    announcement: { enabled: false, tone: "info", text: {} },
    maintenance: { enabled: false },
    safety: DEFAULT_SAFETY,
    label: { enabled: false, text: "", position: "bottom-right", scope: "everyone" },
    billing: { graceDays: 7, packExpiryDays: 0, bonusExpiryDays: 0, stripeTax: false, publicResults: false },
    explore: { enabled: true },
  };
}

/** The saved sections over the defaults; a saved section that no longer reads as valid keeps the default. */
export function mergeSettings(defaults: Settings, saved: unknown): Settings {
  const out: Settings = { ...defaults };
  if (!saved || typeof saved !== "object") return out;
  const shape = settingsSchema.shape;
  for (const key of Object.keys(shape) as (keyof Settings)[]) {
    const parsed = shape[key].safeParse((saved as Record<string, unknown>)[key]);
    if (parsed.success) (out as Record<string, unknown>)[key] = parsed.data;
  }
  return out;
}

export async function readSavedSettings(db: Db): Promise<unknown> {
  const [row] = await db.select({ value: appSetting.value }).from(appSetting).where(eq(appSetting.key, SETTINGS_KEY));
  return row?.value ?? null;
}

/**
 * The settings a process works with, held in memory (pages read them on every request): loaded at start, read
 * again after a change made here and every few seconds for one made by another process.
 */
export class SettingsStore {
  #current: Settings;
  /** The plans' last change: the pricing page shows them, so a change (from the console or the command line) is one. */
  #plans: string | undefined;
  #timer: NodeJS.Timeout | undefined;
  readonly #listeners = new Set<() => void>();
  readonly #db: Db;
  readonly #logger: Logger;
  readonly defaults: Settings;

  constructor(db: Db, defaults: Settings, logger: Logger) {
    this.#db = db;
    this.#logger = logger;
    this.defaults = defaults;
    this.#current = defaults;
  }

  current(): Settings {
    return this.#current;
  }

  /** Calls `listener` whenever the settings change (to forget pages rendered with the old ones). */
  onChange(listener: () => void): void {
    this.#listeners.add(listener);
  }

  async refresh(): Promise<void> {
    const [saved, plans] = await Promise.all([readSavedSettings(this.#db), plansStamp(this.#db)]);
    const next = mergeSettings(this.defaults, saved);
    const same = JSON.stringify(next) === JSON.stringify(this.#current) && plans === this.#plans;
    // The first reading of the plans is not a change.
    this.#plans ??= plans;
    if (same) return;
    this.#current = next;
    this.#plans = plans;
    for (const listener of this.#listeners) listener();
  }

  start(): void {
    this.#timer = setInterval(() => {
      this.refresh().catch((error: Error) => this.#logger.warn({ err: error.message }, "settings not read again"));
    }, REFRESH_MS);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}

async function plansStamp(db: Db): Promise<string> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int`, at: sql<string | null>`max(${plan.updatedAt})::text` })
    .from(plan);
  return `${row?.n ?? 0}@${row?.at ?? ""}`;
}

/** The site's configuration with what the console changed of it. */
export function siteWithSettings<Site extends SiteConfig>(site: Site, settings: Settings): Site {
  return {
    ...site,
    signupBonusCredits: settings.signupBonusCredits,
    packs: settings.packs,
    explore: settings.explore.enabled,
  };
}
