import { toolsOfKind } from "#common/tools.ts";
import { Checkbox, Input, Tag, Typography } from "antd";
import { createContext, useContext, useState, type ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { IMAGE_ASPECT_RATIOS, VIDEO_ASPECT_RATIOS, VIDEO_DURATIONS } from "#common/generation.ts";
import type { InputMapping } from "#common/input-mapping.ts";
import { PRICED_SETTINGS, type ModelPrice, type ParameterField } from "#common/model-parameters.ts";
import { currencyDigits, formatMoney } from "#common/format.ts";
import type { Locale } from "#common/locales.ts";

/**
 * The model editor's parts (the mapping of the common parameters, the limits, the advanced settings and the price
 * formula), shared by the page that adds a model by id and a model's page. Plain form fields: they work before the
 * scripts; a refused save fills them again with what was typed.
 */
interface Typed {
  /** The values the refused form sent (none: the model's own values). */
  values?: Record<string, string[]>;
  /** The field the refusal names. */
  field?: string;
}

const TypedContext = createContext<Typed>({});

export function TypedValues({ values, field, children }: Typed & { children: ReactNode }) {
  return <TypedContext.Provider value={{ values, field }}>{children}</TypedContext.Provider>;
}

function useTyped() {
  const { values, field } = useContext(TypedContext);
  return {
    value: (name: string, own: string | number | undefined | null) =>
      values ? (values[name]?.[0] ?? "") : own === undefined || own === null ? "" : String(own),
    checked: (name: string, own: boolean) => (values ? name in values : own),
    checkedValue: (name: string, value: string, own: boolean) => (values ? (values[name] ?? []).includes(value) : own),
    status: (name: string) => (field === name ? ("error" as const) : undefined),
  };
}

type MediaKind = "image" | "video";

/** The common parameters an image or a video model maps onto its provider's fields. */
const COMMON: Record<MediaKind, readonly (keyof InputMapping)[]> = {
  image: [
    "prompt",
    "negativePrompt",
    "seed",
    "count",
    "aspectRatio",
    "width",
    "height",
    "inputImage",
    "mask",
    "scale",
    "strength",
    "resolution",
  ],
  video: [
    "prompt",
    "negativePrompt",
    "seed",
    "aspectRatio",
    "inputImage",
    "endImage",
    "duration",
    "resolution",
    "audio",
  ],
};

const fieldOf = (mapping: InputMapping | undefined, key: keyof InputMapping): string | undefined => {
  const v = mapping?.[key];
  return typeof v === "string" ? v : v?.field;
};

/** The provider's fields a mapping may name: those it names, and the model's advanced settings. */
export function schemaFields(mapping: InputMapping | undefined, parameters: readonly ParameterField[] | undefined) {
  const names = new Set<string>();
  for (const key of Object.keys(mapping ?? {}) as (keyof InputMapping)[]) {
    const f = fieldOf(mapping, key);
    if (f) names.add(f);
  }
  for (const p of parameters ?? []) names.add(p.name);
  return [...names];
}

function FieldSelect({ name, fields, current }: { name: string; fields: readonly string[]; current?: string }) {
  const { t } = useTranslation("admin");
  const typed = useTyped();
  const options = current && !fields.includes(current) ? [current, ...fields] : fields;
  return (
    <select
      name={name}
      className="admin-select"
      defaultValue={typed.value(name, current)}
      aria-invalid={typed.status(name) ? true : undefined}
    >
      <option value="">{t("modelEditor.notMapped")}</option>
      {options.map((f) => (
        <option key={f} value={f}>
          {f}
        </option>
      ))}
    </select>
  );
}

/** Where each common parameter goes in the provider's input: a field of its schema, or not mapped. */
export function MappingEditor({
  prefix,
  kind,
  mapping,
  fields,
}: {
  prefix: string;
  kind: MediaKind;
  mapping: InputMapping | undefined;
  fields: readonly string[];
}) {
  const { t } = useTranslation("admin");
  const typed = useTyped();
  const ratio = mapping?.aspectRatio;
  const ratioAs = ratio?.sizeObject ? "size" : ratio?.values ? "named" : "ratio";
  const ratios = kind === "image" ? IMAGE_ASPECT_RATIOS : VIDEO_ASPECT_RATIOS;
  return (
    <div className="admin-editor-scroll">
      <input type="hidden" name={`${prefix}shown`} value="1" />
      <table className="admin-editor-table admin-editor-stack" data-mapping={prefix}>
        <thead>
          <tr>
            <th scope="col">{t("modelEditor.commonParameter")}</th>
            <th scope="col">{t("modelEditor.providerField")}</th>
            <th scope="col">{t("modelEditor.how")}</th>
          </tr>
        </thead>
        <tbody>
          {COMMON[kind].map((key) => (
            <tr key={key} data-common={key}>
              <th scope="row">{t(`modelEditor.common.${key}`)}</th>
              <td data-label={t("modelEditor.providerField")}>
                <FieldSelect name={`${prefix}${key}`} fields={fields} current={fieldOf(mapping, key)} />
              </td>
              <td className="admin-editor-wide">
                {key === "aspectRatio" && (
                  <div className="admin-stack admin-editor-gap">
                    <select
                      name={`${prefix}aspectRatio.as`}
                      className="admin-select"
                      aria-label={t("modelEditor.how")}
                      defaultValue={typed.value(`${prefix}aspectRatio.as`, ratioAs)}
                    >
                      <option value="ratio">{t("modelEditor.ratioAsIs")}</option>
                      <option value="named">{t("modelEditor.ratioNamed")}</option>
                      <option value="size">{t("modelEditor.ratioSize")}</option>
                    </select>
                    <span className="admin-editor-sizes">
                      {ratios.map((r) => (
                        <label key={r} className="admin-editor-size">
                          <span>{r}</span>
                          <Input
                            size="small"
                            name={`${prefix}aspectRatio.value.${r}`}
                            maxLength={100}
                            aria-label={t("modelEditor.namedSizeFor", { ratio: r })}
                            defaultValue={typed.value(`${prefix}aspectRatio.value.${r}`, ratio?.values?.[r])}
                            status={typed.status(`${prefix}aspectRatio.as`)}
                          />
                        </label>
                      ))}
                    </span>
                  </div>
                )}
                {key === "inputImage" && (
                  <Checkbox
                    name={`${prefix}inputImage.list`}
                    defaultChecked={typed.checked(`${prefix}inputImage.list`, mapping?.inputImage?.list ?? false)}
                  >
                    {t("modelEditor.imageList")}
                  </Checkbox>
                )}
                {key === "duration" && (
                  <span className="admin-editor-inline">
                    <select
                      name={`${prefix}duration.as`}
                      className="admin-select"
                      aria-label={t("modelEditor.how")}
                      defaultValue={typed.value(`${prefix}duration.as`, mapping?.duration?.as ?? "integer")}
                    >
                      <option value="integer">{t("modelEditor.durationNumber")}</option>
                      <option value="string">{t("modelEditor.durationText")}</option>
                    </select>
                    <Input
                      size="small"
                      name={`${prefix}duration.suffix`}
                      maxLength={10}
                      placeholder={t("modelEditor.durationSuffix")}
                      aria-label={t("modelEditor.durationSuffix")}
                      defaultValue={typed.value(`${prefix}duration.suffix`, mapping?.duration?.suffix)}
                    />
                  </span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <Typography.Paragraph type="secondary" className="admin-hint">
        {t("modelEditor.mappingHint")}
      </Typography.Paragraph>
    </div>
  );
}

export interface EditorOptions {
  aspectRatios: readonly string[];
  maxCount: number;
  durations?: readonly number[];
  resolutions?: readonly string[];
  audio?: boolean;
}

/** The common parameters' limits: the ratios, how many images, the durations, the resolutions and sound. */
export function LimitsEditor({
  kind,
  options,
  tools,
}: {
  kind: MediaKind;
  options: EditorOptions;
  /** The tools the model serves now (proposed from its inputs, or as kept). */
  tools: readonly string[];
}) {
  const { t } = useTranslation("admin");
  const typed = useTyped();
  const ratios = kind === "image" ? IMAGE_ASPECT_RATIOS : VIDEO_ASPECT_RATIOS;
  return (
    <div className="admin-codes-form" data-limits>
      <input type="hidden" name="limits.shown" value="1" />
      <fieldset className="admin-filter admin-fieldset admin-editor-checks" data-tools-editor>
        <legend>{t("modelEditor.tools")}</legend>
        {toolsOfKind(kind).map((tool) => (
          <Checkbox
            key={tool}
            name="limits.tools"
            value={tool}
            defaultChecked={typed.checkedValue("limits.tools", tool, tools.includes(tool))}
          >
            {t(`modelAdd.toolNames.${tool}`)}
          </Checkbox>
        ))}
        <p className="admin-hint">{t("modelEditor.toolsHint")}</p>
      </fieldset>
      <fieldset className="admin-filter admin-fieldset admin-editor-checks">
        <legend>{t("modelEditor.aspectRatios")}</legend>
        {ratios.map((r) => (
          <Checkbox
            key={r}
            name="limits.aspectRatios"
            value={r}
            defaultChecked={typed.checkedValue("limits.aspectRatios", r, options.aspectRatios.includes(r))}
          >
            {r}
          </Checkbox>
        ))}
      </fieldset>
      {kind === "image" ? (
        <label className="admin-filter">
          <span>{t("modelEditor.maxCount")}</span>
          <Input
            name="limits.maxCount"
            type="number"
            min={1}
            max={10}
            step={1}
            required
            defaultValue={typed.value("limits.maxCount", options.maxCount)}
            status={typed.status("limits.maxCount")}
          />
        </label>
      ) : (
        <fieldset className="admin-filter admin-fieldset admin-editor-checks">
          <legend>{t("modelEditor.durations")}</legend>
          {VIDEO_DURATIONS.map((d) => (
            <Checkbox
              key={d}
              name="limits.durations"
              value={String(d)}
              defaultChecked={typed.checkedValue(
                "limits.durations",
                String(d),
                options.durations?.includes(d) ?? false,
              )}
            >
              {t("modelEditor.seconds", { n: d })}
            </Checkbox>
          ))}
        </fieldset>
      )}
      <label className="admin-filter admin-filter-grow">
        <span>{t("modelEditor.resolutions")}</span>
        <Input
          name="limits.resolutions"
          maxLength={500}
          placeholder={t("modelEditor.resolutionsPlaceholder")}
          defaultValue={typed.value("limits.resolutions", options.resolutions?.join(", "))}
          status={typed.status("limits.resolutions")}
        />
      </label>
      {kind === "video" && (
        <Checkbox name="limits.audio" defaultChecked={typed.checked("limits.audio", options.audio ?? false)}>
          {t("modelEditor.audio")}
        </Checkbox>
      )}
    </div>
  );
}

const limitsText = (f: ParameterField) =>
  [
    f.minimum !== undefined || f.maximum !== undefined ? `${f.minimum ?? "…"} – ${f.maximum ?? "…"}` : "",
    f.maxLength !== undefined ? `≤ ${f.maxLength}` : "",
  ]
    .filter(Boolean)
    .join(" ");

/** The model's own settings: each one's label and default can change, and any can be dropped. */
export function ParametersEditor({ parameters }: { parameters: readonly ParameterField[] }) {
  const { t } = useTranslation("admin");
  const typed = useTyped();
  if (parameters.length === 0)
    return (
      <Typography.Paragraph type="secondary">
        <input type="hidden" name="params.shown" value="1" />
        {t("modelEditor.noParameters")}
      </Typography.Paragraph>
    );
  return (
    <div className="admin-editor-scroll">
      <input type="hidden" name="params.shown" value="1" />
      <table className="admin-editor-table admin-editor-stack" data-parameters>
        <thead>
          <tr>
            <th scope="col">{t("modelEditor.providerField")}</th>
            <th scope="col">{t("modelEditor.label")}</th>
            <th scope="col">{t("modelEditor.type")}</th>
            <th scope="col">{t("modelEditor.default")}</th>
            <th scope="col">{t("modelEditor.limits")}</th>
            <th scope="col">{t("modelEditor.drop")}</th>
          </tr>
        </thead>
        <tbody>
          {parameters.map((f, i) => {
            const own = f.default === undefined ? "" : String(f.default);
            const name = `param.${i}.default`;
            return (
              <tr key={f.name} data-parameter={f.name}>
                <th scope="row">
                  <input type="hidden" name={`param.${i}.name`} value={f.name} />
                  <Typography.Text code>{f.name}</Typography.Text>
                  {f.description && (
                    <Typography.Paragraph type="secondary" className="admin-editor-note" ellipsis={{ rows: 2 }}>
                      {f.description}
                    </Typography.Paragraph>
                  )}
                </th>
                <td data-label={t("modelEditor.label")}>
                  <Input
                    size="small"
                    name={`param.${i}.label`}
                    maxLength={100}
                    required
                    aria-label={t("modelEditor.labelOf", { name: f.name })}
                    defaultValue={typed.value(`param.${i}.label`, f.label)}
                    status={typed.status(`param.${i}.label`)}
                  />
                </td>
                <td data-label={t("modelEditor.type")}>
                  <Tag>{t(`modelEditor.types.${f.type}`)}</Tag>
                </td>
                <td data-label={t("modelEditor.default")}>
                  {f.choices || f.type === "boolean" ? (
                    <select
                      name={name}
                      className="admin-select"
                      aria-label={t("modelEditor.defaultOf", { name: f.name })}
                      defaultValue={typed.value(name, own)}
                    >
                      <option value="">{t("modelEditor.noDefault")}</option>
                      {(f.choices ?? ["true", "false"]).map((c) => (
                        <option key={String(c)} value={String(c)}>
                          {f.type === "boolean" ? t(`modelEditor.${String(c) as "true" | "false"}`) : String(c)}
                        </option>
                      ))}
                    </select>
                  ) : (
                    <Input
                      size="small"
                      name={name}
                      aria-label={t("modelEditor.defaultOf", { name: f.name })}
                      inputMode={f.type === "string" ? undefined : "decimal"}
                      defaultValue={typed.value(name, own)}
                      status={typed.status(name)}
                    />
                  )}
                </td>
                <td data-label={t("modelEditor.limits")}>
                  <span className="admin-stack">
                    {limitsText(f) && <span>{limitsText(f)}</span>}
                    {f.choices && (
                      <Typography.Text type="secondary" className="admin-editor-note">
                        {f.choices.join(", ")}
                      </Typography.Text>
                    )}
                  </span>
                </td>
                <td data-label={t("modelEditor.drop")}>
                  <Checkbox
                    name={`param.${i}.drop`}
                    aria-label={t("modelEditor.dropOf", { name: f.name })}
                    defaultChecked={typed.checked(`param.${i}.drop`, false)}
                  />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

/** Empty rows under a formula's multipliers, to add one (the page works without scripts). */
const BLANK_ROWS = 3;

/**
 * The price formula (credits per unit, multipliers by setting and value, a minimum), the provider's cost per unit
 * and the margin per unit it leaves at the credit packs' lowest price per credit.
 */
export function PriceEditor({
  price,
  cost,
  quoted,
  parameters,
  locale,
  currency,
  creditValue,
}: {
  price: ModelPrice;
  cost: number | null;
  /** What the provider's API says it charges, when it says. */
  quoted?: { unitPrice: number; unit: string; currency: string } | null;
  parameters: readonly ParameterField[];
  locale: Locale;
  currency: string;
  /** What a credit is worth at least, in minor units of `currency`. */
  creditValue: number;
}) {
  const { t } = useTranslation("admin");
  const typed = useTyped();
  // By setting's name: the order a formula is kept in is not the order it was typed in.
  const rows = Object.entries(price.multipliers ?? {})
    .sort(([a], [b]) => a.localeCompare(b))
    .flatMap(([setting, table]) =>
      Object.entries(table).map(([value, factor]) => ({ setting, value, factor: String(factor) })),
    );
  const all = [...rows, ...Array.from({ length: BLANK_ROWS }, () => ({ setting: "", value: "", factor: "" }))];
  const settings = [...PRICED_SETTINGS, ...parameters.map((p) => p.name)];
  const [credits, setCredits] = useState(typed.value("price.credits", price.credits));
  const [costText, setCostText] = useState(typed.value("price.cost", cost));
  const read = (s: string) => (s.trim() === "" ? NaN : Number(s.replace(",", ".")));
  const digits = currencyDigits(currency);
  const earned = read(credits) * creditValue;
  const spent = costText.trim() === "" ? NaN : read(costText) * 10 ** digits;
  const margin = Number.isFinite(earned) && Number.isFinite(spent) ? Math.round(earned - spent) : null;
  return (
    <div className="admin-stack admin-editor-gap" data-price>
      <div className="admin-codes-form">
        <label className="admin-filter">
          <span>{t("model.unit")}</span>
          <select name="price.unit" className="admin-select" defaultValue={typed.value("price.unit", price.unit)}>
            {(["image", "video", "videoSecond"] as const).map((u) => (
              <option key={u} value={u}>
                {t(`models.units.${u}`)}
              </option>
            ))}
          </select>
        </label>
        <label className="admin-filter">
          <span>{t("modelEditor.creditsPerUnit")}</span>
          <Input
            name="price.credits"
            inputMode="decimal"
            required
            value={credits}
            onChange={(e) => setCredits(e.target.value)}
            status={typed.status("price.credits")}
          />
        </label>
        <label className="admin-filter">
          <span>{t("modelEditor.minimum")}</span>
          <Input
            name="price.minimum"
            type="number"
            min={0}
            step={1}
            defaultValue={typed.value("price.minimum", price.minimum)}
            status={typed.status("price.minimum")}
          />
        </label>
      </div>
      <div className="admin-editor-scroll">
        <table className="admin-editor-table admin-editor-stack" data-multipliers>
          <caption>{t("modelEditor.multipliers")}</caption>
          <thead>
            <tr>
              <th scope="col">{t("modelEditor.setting")}</th>
              <th scope="col">{t("modelEditor.value")}</th>
              <th scope="col">{t("modelEditor.factor")}</th>
            </tr>
          </thead>
          <tbody>
            {all.map((row, i) => (
              <tr key={i} data-multiplier={i}>
                <td data-label={t("modelEditor.setting")}>
                  <select
                    name={`mult.${i}.setting`}
                    className="admin-select"
                    aria-label={t("modelEditor.setting")}
                    defaultValue={typed.value(`mult.${i}.setting`, row.setting)}
                    aria-invalid={typed.status(`mult.${i}.setting`) ? true : undefined}
                  >
                    <option value="">—</option>
                    {settings.map((s) => (
                      <option key={s} value={s}>
                        {(PRICED_SETTINGS as readonly string[]).includes(s) ? t(`modelEditor.priced.${s}`) : s}
                      </option>
                    ))}
                  </select>
                </td>
                <td data-label={t("modelEditor.value")}>
                  <Input
                    size="small"
                    name={`mult.${i}.value`}
                    maxLength={200}
                    aria-label={t("modelEditor.value")}
                    placeholder="1080p"
                    defaultValue={typed.value(`mult.${i}.value`, row.value)}
                    status={typed.status(`mult.${i}.value`)}
                  />
                </td>
                <td data-label={t("modelEditor.factor")}>
                  <Input
                    size="small"
                    name={`mult.${i}.factor`}
                    inputMode="decimal"
                    aria-label={t("modelEditor.factor")}
                    placeholder="1.5"
                    defaultValue={typed.value(`mult.${i}.factor`, row.factor)}
                    status={typed.status(`mult.${i}.factor`)}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Typography.Paragraph type="secondary" className="admin-hint">
        {t("modelEditor.formulaHint")}
      </Typography.Paragraph>
      <div className="admin-codes-form">
        <label className="admin-filter">
          <span>{t("models.costPerUnit", { currency: currency.toUpperCase() })}</span>
          <Input
            name="price.cost"
            inputMode="decimal"
            value={costText}
            onChange={(e) => setCostText(e.target.value)}
            status={typed.status("price.cost")}
          />
        </label>
        <dl className="admin-money admin-editor-margin">
          {quoted && (
            <div>
              <dt>{t("modelEditor.quoted")}</dt>
              <dd data-quoted>
                {t("modelEditor.quotedValue", {
                  price: new Intl.NumberFormat(locale, {
                    style: "currency",
                    currency: quoted.currency.toUpperCase(),
                    maximumFractionDigits: 6,
                  }).format(quoted.unitPrice),
                  unit: quoted.unit,
                })}
              </dd>
            </div>
          )}
          <div>
            <dt>{t("modelEditor.marginPerUnit")}</dt>
            <dd
              data-margin
              className={margin === null ? undefined : margin < 0 ? "credit-minus" : "credit-plus"}
              aria-live="polite"
            >
              {margin === null ? "—" : `${margin < 0 ? "−" : ""}${formatMoney(locale, Math.abs(margin), currency)}`}
            </dd>
          </div>
        </dl>
      </div>
      <Typography.Paragraph type="secondary" className="admin-hint">
        {t("modelEditor.marginHint")}
      </Typography.Paragraph>
    </div>
  );
}
