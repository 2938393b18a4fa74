import { eq, sql } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { appSetting } from "#server/db/schema/index.ts";
import { recordAdminAction, type AdminActor } from "#server/modules/audit/record-admin-action.ts";
import { mergeSettings, SETTINGS_KEY } from "./settings-store.ts";
import { settingsSchema, type Settings, type SettingsSection } from "./schema.ts";

/**
 * Saves one section of the settings, whole, with its value before and after in the audit log, in one transaction
 * (the row locked, so two administrators saving at once are applied one after the other). False when nothing
 * changed (and nothing is logged).
 */
export async function updateSettings<Section extends SettingsSection>({
  db,
  defaults,
  section,
  value,
  actor,
}: {
  db: Db;
  defaults: Settings;
  section: Section;
  value: Settings[Section];
  actor: AdminActor;
}): Promise<boolean> {
  const parsed = settingsSchema.shape[section].parse(value) as Settings[Section];
  return db.transaction(async (tx) => {
    await tx
      .insert(appSetting)
      .values({ key: SETTINGS_KEY, value: {} })
      .onConflictDoNothing({ target: appSetting.key });
    const [row] = await tx
      .select({ value: appSetting.value })
      .from(appSetting)
      .where(eq(appSetting.key, SETTINGS_KEY))
      .for("update");
    const saved = (row?.value ?? {}) as Record<string, unknown>;
    const before = mergeSettings(defaults, saved)[section];
    if (JSON.stringify(before) === JSON.stringify(parsed)) return false;
    await tx
      .update(appSetting)
      .set({ value: { ...saved, [section]: parsed }, updatedAt: sql`now()` })
      .where(eq(appSetting.key, SETTINGS_KEY));
    await recordAdminAction(tx, actor, {
      action: `settings.${section}`,
      targetType: "settings",
      targetId: section,
      targetLabel: section,
      before: { [section]: before },
      after: { [section]: parsed },
    });
    return true;
  });
}
