import { data } from "react-router";
import type { AdminResult } from "#app/components/admin/user-actions.tsx";
import { CatalogRefusal } from "#server/modules/catalog/edit-models.ts";
import { isProviderId, providerDefinition } from "#server/providers/registry.ts";

/** How the console draws one setting of a provider's connection. */
export interface SettingField {
  key: string;
  type: "secret" | "text" | "list" | "boolean";
  required: boolean;
}

/** A provider's connection settings, read from its schema's shape: secrets, texts, lists and switches. */
export function settingFieldsOf(provider: string): SettingField[] {
  if (!isProviderId(provider)) return [];
  const definition = providerDefinition(provider);
  const shape = (definition.connectionSchema as unknown as { shape?: Record<string, unknown> }).shape ?? {};
  return Object.entries(shape).map(([key, schema]) => {
    let def = (schema as { _zod: { def: { type: string; innerType?: unknown } } })._zod.def;
    const required = def.type !== "optional";
    while ((def.type === "optional" || def.type === "default") && def.innerType)
      def = (def.innerType as { _zod: { def: typeof def } })._zod.def;
    const type = (definition.secrets as readonly string[]).includes(key)
      ? "secret"
      : def.type === "array"
        ? "list"
        : def.type === "boolean"
          ? "boolean"
          : "text";
    return { key, type, required };
  });
}

/**
 * The settings a console form gives (`setting.<key>`), by the provider's fields: a blank secret is left out (the
 * kept one stays), a blank text is null (removed), a list is one item a line or a comma, a switch is on when ticked.
 */
export function settingsOfForm(provider: string, form: FormData): Record<string, unknown> {
  const settings: Record<string, unknown> = {};
  for (const field of settingFieldsOf(provider)) {
    const raw = form.get(`setting.${field.key}`);
    const text = typeof raw === "string" ? raw.trim() : "";
    if (field.type === "boolean") settings[field.key] = text === "on" || text === "true";
    else if (field.type === "list")
      settings[field.key] = text
        .split(/[\n,]/)
        .map((s) => s.trim())
        .filter(Boolean);
    else if (field.type === "secret") {
      if (text) settings[field.key] = text;
    } else settings[field.key] = text === "" ? null : text;
  }
  return settings;
}

/** A refused change of the catalog as the console shows it: a translated message naming the field at fault. */
export function refusalResult(intent: string, error: unknown, values: Record<string, string> = {}) {
  if (!(error instanceof CatalogRefusal)) throw error;
  const field = error.field?.split(".")[0] ?? "";
  return data<AdminResult>(
    {
      intent,
      error: field ? `catalog.refused.${error.reason}Field` : `catalog.refused.${error.reason}`,
      field: error.field,
      values: { ...values, field: error.field ?? "" },
    },
    { status: 400 },
  );
}
