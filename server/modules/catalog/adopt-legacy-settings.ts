import { eq, sql } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import type { Env } from "#server/env.ts";
import { appSetting, catalogModel } from "#server/db/schema/index.ts";
import { SETTINGS_KEY } from "#server/modules/settings/settings-store.ts";
import { builtInDefinitions } from "./catalog.ts";

/**
 * Moves what earlier releases kept of the models in the console's settings (switched off, re-priced, the provider's
 * cost) into the catalog's rows, once, in one transaction: an upgraded installation keeps every model as it was.
 * Returns how many models it moved.
 */
export async function adoptLegacyModelSettings(db: Db, env: Env): Promise<number> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .select({ value: appSetting.value })
      .from(appSetting)
      .where(eq(appSetting.key, SETTINGS_KEY))
      .for("update");
    const saved = row?.value as Record<string, unknown> | undefined;
    const legacy = saved?.models;
    if (!saved || !legacy || typeof legacy !== "object") return 0;
    const builtIns = builtInDefinitions(env);
    let moved = 0;
    for (const [id, value] of Object.entries(legacy as Record<string, unknown>)) {
      const builtIn = builtIns.get(id);
      if (!builtIn || builtIn.kind === "chat" || !value || typeof value !== "object") continue;
      const old = value as { enabled?: unknown; credits?: unknown; cost?: unknown };
      const patch: Record<string, unknown> = {};
      if (old.enabled === false) patch.enabled = false;
      if (typeof old.credits === "number") patch.price = { unit: builtIn.price.unit, credits: old.credits };
      if (typeof old.cost === "number") patch.cost = old.cost;
      if (Object.keys(patch).length === 0) continue;
      // A row made since (by a newer process) wins.
      const inserted = await tx
        .insert(catalogModel)
        .values({ id, definition: patch })
        .onConflictDoNothing({ target: catalogModel.id })
        .returning({ id: catalogModel.id });
      moved += inserted.length;
    }
    const { models: _moved, ...rest } = saved;
    await tx
      .update(appSetting)
      .set({ value: rest, updatedAt: sql`now()` })
      .where(eq(appSetting.key, SETTINGS_KEY));
    return moved;
  });
}
