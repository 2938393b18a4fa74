import { eq, sql } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import { appSetting } from "#server/db/schema/index.ts";
import {
  recordAdminAction,
  type AdminActionEntry,
  type AdminActor,
} from "#server/modules/audit/record-admin-action.ts";
import { mergeSettings, SETTINGS_KEY } from "./settings-store.ts";
import { settingsSchema, type Settings, type SettingsSection } from "./schema.ts";

/**
 * Changes one section of the settings in one transaction with its audit log entry: the row is locked (two
 * administrators saving at once are applied one after the other), `change` makes the new value from the current one,
 * and `entry` says what to log. False when nothing changed (and nothing is written).
 */
async function changeSection<Section extends SettingsSection>(
  db: Db,
  defaults: Settings,
  section: Section,
  change: (current: Settings[Section]) => Settings[Section],
  entry: (before: Settings[Section], after: Settings[Section]) => AdminActionEntry,
  actor: AdminActor,
): Promise<boolean> {
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
    const after = settingsSchema.shape[section].parse(change(before)) as Settings[Section];
    if (JSON.stringify(before) === JSON.stringify(after)) return false;
    await tx
      .update(appSetting)
      .set({ value: { ...saved, [section]: after }, updatedAt: sql`now()` })
      .where(eq(appSetting.key, SETTINGS_KEY));
    await recordAdminAction(tx, actor, entry(before, after));
    return true;
  });
}

/** Saves one section of the settings, whole, with its value before and after in the audit log. */
export function updateSettings<Section extends SettingsSection>({
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
  return changeSection(
    db,
    defaults,
    section,
    () => value,
    (before, after) => ({
      action: `settings.${section}`,
      targetType: "settings",
      targetId: section,
      targetLabel: section,
      before: { [section]: before },
      after: { [section]: after },
    }),
    actor,
  );
}
