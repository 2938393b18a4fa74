import { useState } from "react";
import { Button, Input, InputNumber, Segmented, Select, Slider, Switch } from "antd";
import { UndoOutlined } from "#app/components/antd-icons.ts";
import { useTranslation } from "react-i18next";
import type { ModelView } from "#app/lib/generations.ts";
import { changedSettings, defaultSettings, type SettingValues } from "#app/lib/model-settings.ts";
import { checkParameters, type ParameterField, type ParameterValues } from "#common/model-parameters.ts";

/**
 * A model's own settings in a form: its resolution (the first by default), sound for a video model that makes it,
 * and its advanced fields (their defaults until changed). Each model keeps its own values while the form is open;
 * another model starts from its own defaults.
 */
export function useModelSettings(
  model: Pick<ModelView, "id" | "options" | "parameters"> | undefined,
  initial: { model?: string; resolution?: string; audio?: boolean; options?: ParameterValues } = {},
) {
  // A reused generation's settings, for its own model.
  const [state, setState] = useState<{ model: string; values: SettingValues }>(() => ({
    model: initial.options && model && model.id === initial.model ? model.id : "",
    values: { ...defaultSettings(model?.parameters), ...initial.options },
  }));
  const [resolution, setResolution] = useState<string | undefined>(initial.resolution);
  const [audio, setAudio] = useState(initial.audio ?? false);
  const fields = model?.parameters ?? [];
  const values = state.model === model?.id ? state.values : defaultSettings(fields);
  const resolutions = model?.options.resolutions ?? [];
  const effectiveResolution =
    resolution !== undefined && resolutions.includes(resolution) ? resolution : resolutions[0];
  const options = changedSettings(fields, values);
  return {
    fields,
    values,
    resolutions,
    resolution: effectiveResolution,
    setResolution,
    audio: Boolean(model?.options.audio) && audio,
    setAudio,
    setValue: (name: string, value: SettingValues[string]) =>
      setState({ model: model?.id ?? "", values: { ...values, [name]: value } }),
    reset: () => setState({ model: model?.id ?? "", values: defaultSettings(fields) }),
    /** The advanced values sent (those changed from their defaults). */
    options,
    /** What the request adds for these settings, as sent and as priced. */
    sent: {
      ...(effectiveResolution !== undefined ? { resolution: effectiveResolution } : {}),
      ...(options ? { options } : {}),
    },
    /** The first value the model would refuse, if any: its label. */
    problem: (): string | undefined => {
      const check = checkParameters(fields, options as ParameterValues | undefined);
      return check.ok ? undefined : (fields.find((f) => f.name === check.field)?.label ?? check.field);
    },
  };
}
export type ModelSettings = ReturnType<typeof useModelSettings>;

/** The resolution choice, shown when the model names its resolutions. */
export function ResolutionField({ id, settings }: { id: string; settings: ModelSettings }) {
  const { t } = useTranslation("studio");
  if (settings.resolutions.length === 0) return null;
  return (
    <div className="studio-field">
      <span className="studio-label" id={`${id}-label`}>
        {t("form.resolution")}
      </span>
      <Segmented
        id={id}
        aria-labelledby={`${id}-label`}
        className="studio-resolutions"
        value={settings.resolution}
        onChange={(v) => settings.setResolution(String(v))}
        options={settings.resolutions.map((r) => ({ value: r, label: r }))}
      />
    </div>
  );
}

/** Sound with the video, for a model that makes it (off unless asked). */
export function AudioField({ id, settings, available }: { id: string; settings: ModelSettings; available: boolean }) {
  const { t } = useTranslation("studio");
  if (!available) return null;
  return (
    <div className="studio-field">
      <label className="studio-label" htmlFor={id}>
        {t("form.audio")}
      </label>
      <div className="studio-seed">
        <Switch id={id} checked={settings.audio} onChange={settings.setAudio} aria-label={t("form.audioLabel")} />
        <span className="studio-hint">{t("form.audioHint")}</span>
      </div>
    </div>
  );
}

/** One control per advanced field, by its type: a number, a switch, a choice or a text. */
function SettingControl({
  id,
  field,
  value,
  onChange,
}: {
  id: string;
  field: ParameterField;
  value: SettingValues[string];
  onChange: (v: SettingValues[string]) => void;
}) {
  const hint = field.description ? `${id}-hint` : undefined;
  if (field.choices) {
    return (
      <Select
        id={id}
        className="studio-setting-select"
        value={typeof value === "boolean" ? String(value) : value}
        onChange={(v: string | number) => onChange(v)}
        options={field.choices.map((c) => ({ value: c, label: String(c) }))}
        aria-describedby={hint}
        allowClear={field.default === undefined}
      />
    );
  }
  switch (field.type) {
    case "boolean":
      return <Switch id={id} checked={value === true} onChange={onChange} aria-describedby={hint} />;
    case "integer":
    case "number": {
      const integer = field.type === "integer";
      const bounded = field.minimum !== undefined && field.maximum !== undefined;
      const span = bounded ? field.maximum! - field.minimum! : 0;
      const step = integer ? 1 : bounded && span <= 2 ? 0.01 : 0.1;
      const number = typeof value === "number" ? value : null;
      const input = (
        <InputNumber
          id={id}
          min={field.minimum}
          max={field.maximum}
          step={step}
          precision={integer ? 0 : undefined}
          value={number}
          onChange={(v) => onChange(typeof v === "number" ? v : undefined)}
          aria-describedby={hint}
        />
      );
      if (!bounded) return input;
      return (
        <div className="studio-setting-range">
          <Slider
            min={field.minimum}
            max={field.maximum}
            step={step}
            value={number ?? field.minimum}
            onChange={(v) => onChange(v)}
            aria-label={field.label}
          />
          {input}
        </div>
      );
    }
    case "string":
      return (
        <Input
          id={id}
          value={typeof value === "string" ? value : ""}
          onChange={(e) => onChange(e.target.value)}
          count={field.maxLength ? { show: true, max: field.maxLength } : undefined}
          aria-describedby={hint}
        />
      );
  }
}

/**
 * The model's advanced settings, folded away until opened (a `details` element: it opens before the page's scripts
 * run too). Each has its label, its description as a hint and its default preset; one button puts all back.
 */
export function AdvancedSettings({ id, settings }: { id: string; settings: ModelSettings }) {
  const { t, i18n } = useTranslation("studio");
  if (settings.fields.length === 0) return null;
  // A setting's label and hint are the provider's (or the operator's) in English; in another language, the site's own
  // words for the settings models commonly have, and the provider's where it has none.
  const english = i18n.language === "en";
  const own = (kind: "labels" | "hints", f: ParameterField, fallback: string | undefined) =>
    !english && fallback !== undefined && i18n.exists(`studio:settings.${kind}.${f.name}`)
      ? t(`settings.${kind}.${f.name}`)
      : fallback;
  return (
    <details className="studio-advanced" id={id}>
      <summary className="studio-label">{t("form.advanced")}</summary>
      <div className="studio-advanced-body">
        {settings.fields.map((f) => {
          const control = `${id}-${f.name}`;
          return (
            <div className="studio-field" key={f.name}>
              <label className="studio-label" htmlFor={control}>
                {own("labels", f, f.label)}
              </label>
              <SettingControl
                id={control}
                field={{ ...f, label: own("labels", f, f.label)! }}
                value={settings.values[f.name]}
                onChange={(v) => settings.setValue(f.name, v)}
              />
              {f.description && (
                <p className="studio-hint" id={`${control}-hint`}>
                  {own("hints", f, f.description)}
                </p>
              )}
            </div>
          );
        })}
        <Button size="small" icon={<UndoOutlined />} onClick={settings.reset} className="studio-advanced-reset">
          {t("form.resetAdvanced")}
        </Button>
      </div>
    </details>
  );
}
