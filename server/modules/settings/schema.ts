import { z } from "zod";
import { LOCALES } from "#common/locales.ts";
import { BLOCK_LIST_MAX_CHARS, BLOCK_LIST_SCOPES, SAFETY_LEVELS } from "#common/safety.ts";
import { LABEL_POSITIONS, LABEL_SCOPES } from "#common/label.ts";
import { MAX_EXPIRY_DAYS } from "#common/plans.ts";

/** A credit pack as an operator defines it (`amount` in the currency's minor units). */
export const packSchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9-]{1,32}$/),
  credits: z.number().int().min(1).max(1_000_000_000),
  amount: z.number().int().min(50).max(100_000_000),
  currency: z
    .string()
    .regex(/^[a-zA-Z]{3}$/)
    .transform((c) => c.toLowerCase()),
  popular: z.boolean().optional(),
});

export const packsSchema = z
  .array(packSchema)
  .min(1)
  .max(12)
  .refine((packs) => new Set(packs.map((p) => p.id)).size === packs.length, "packs with distinct ids");

/** A text in some of the ten languages; a language without one shows the English. */
const perLocale = z.partialRecord(z.enum(LOCALES), z.string().trim().max(500));

export const ANNOUNCEMENT_TONES = ["info", "warning"] as const;

/** What an operator changes in the console, section by section; each section is written and logged whole. */
export const settingsSchema = z.object({
  signupBonusCredits: z.number().int().min(0).max(1_000_000),
  packs: packsSchema,
  announcement: z.object({
    enabled: z.boolean(),
    tone: z.enum(ANNOUNCEMENT_TONES),
    text: perLocale,
  }),
  /** New generations refused (with a message saying so); the banner can say why and until when. */
  maintenance: z.object({ enabled: z.boolean() }),
  /**
   * The content checks: the level of models that do not set their own, and the operator's block list (one word,
   * `prefix*` or `/pattern/` per line), for every language and per language.
   */
  safety: z.object({
    level: z.enum(SAFETY_LEVELS),
    blockList: z.partialRecord(z.enum(BLOCK_LIST_SCOPES), z.string().max(BLOCK_LIST_MAX_CHARS)),
  }),
  /** A visible mark drawn in a corner of output images (videos are not marked visibly). */
  label: z
    .object({
      enabled: z.boolean(),
      text: z.string().trim().max(40),
      position: z.enum(LABEL_POSITIONS),
      scope: z.enum(LABEL_SCOPES),
    })
    .refine((label) => !label.enabled || label.text.length > 0, { path: ["text"], message: "a text to show" }),
  /** Subscriptions: how many days a subscriber whose renewal failed keeps their plan while Stripe retries. */
  billing: z.object({
    graceDays: z.number().int().min(0).max(60),
    /** Days a pack's credits last once bought, and the sign-up bonus's once given; 0: they never expire. */
    packExpiryDays: z.number().int().min(0).max(MAX_EXPIRY_DAYS).default(0),
    bonusExpiryDays: z.number().int().min(0).max(MAX_EXPIRY_DAYS).default(0),
    /** Stripe Tax on Checkout: tax computed from the buyer's address, which Checkout asks for, and tax ids taken. */
    stripeTax: z.boolean().default(false),
    /**
     * Results of accounts whose plan does not include private results are made public (they may be shown on the
     * site), and cannot be made private; what is private already stays so. Off: every result is private by default.
     */
    publicResults: z.boolean().default(false),
  }),
  /** The public gallery of results (`/explore`) and its link in the navigation; off, the page does not exist. */
  explore: z.object({ enabled: z.boolean() }),
});

export type Settings = z.output<typeof settingsSchema>;
export type SettingsSection = keyof Settings;
export const SETTINGS_SECTIONS = [
  "signupBonusCredits",
  "packs",
  "announcement",
  "maintenance",
  "safety",
  "label",
  "billing",
  "explore",
] as const;
