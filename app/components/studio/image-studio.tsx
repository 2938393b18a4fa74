import { useMemo, useState, type FormEvent, type ReactNode } from "react";
import { Button, Input, InputNumber, Segmented, Slider, Switch, Tooltip } from "antd";
import { ThunderboltOutlined, ReloadOutlined } from "@ant-design/icons";
import { useTranslation } from "react-i18next";
import { SubmitFooter, useSubmitGeneration } from "#app/components/studio/submit.tsx";
import { InputImageField, type InputImage } from "#app/components/studio/input-image.tsx";
import { FailureAlert, ModelSelect, PromptField } from "#app/components/studio/parts.tsx";
import { AdvancedSettings, ResolutionField, useModelSettings } from "#app/components/studio/model-settings.tsx";
import type { GenerationView, ModelView } from "#app/lib/generations.ts";
import type { ParameterValues } from "#common/model-parameters.ts";
import { DEFAULT_STRENGTH, MAX_SEED, costOf, type ImageAspectRatio, type SubmitInput } from "#common/generation.ts";

export interface ImageSettings {
  model?: string;
  prompt?: string;
  negativePrompt?: string | null;
  aspectRatio?: ImageAspectRatio;
  count?: number;
  seed?: number;
  strength?: number;
  resolution?: string;
  /** The model's own settings, as a reused generation ran with them. */
  options?: ParameterValues;
  input?: InputImage | null;
}

const randomSeed = () => Math.floor(Math.random() * MAX_SEED);

/** A small drawing of each ratio, so the choice reads at a glance. */
function RatioIcon({ ratio }: { ratio: string }) {
  const [w, h] = ratio.split(":").map(Number) as [number, number];
  const scale = 14 / Math.max(w, h);
  return <span className="ratio-icon" style={{ width: w * scale, height: h * scale }} aria-hidden />;
}

function Field({
  label,
  htmlFor,
  children,
  hint,
}: {
  label: ReactNode;
  htmlFor?: string;
  children: ReactNode;
  hint?: ReactNode;
}) {
  return (
    <div className="studio-field">
      {htmlFor ? (
        <label className="studio-label" htmlFor={htmlFor}>
          {label}
        </label>
      ) : (
        <span className="studio-label">{label}</span>
      )}
      {children}
      {hint}
    </div>
  );
}

/**
 * The text-to-image and image-to-image form: prompt, model with its price, ratio, count, seed, and for
 * image-to-image the input image and strength; the cost and the balance after it. Submitting keeps everything
 * typed, whatever the answer.
 */
export function ImageStudioForm({
  tool,
  models,
  initial,
  onSubmitted,
}: {
  tool: "text-to-image" | "image-to-image";
  models: ModelView[];
  initial: ImageSettings;
  onSubmitted: (g: GenerationView) => void;
}) {
  const { t } = useTranslation("studio");
  const first = models.find((m) => m.id === initial.model) ?? models[0];
  const [modelId, setModelId] = useState(first?.id ?? "");
  const model = models.find((m) => m.id === modelId) ?? first;
  const [prompt, setPrompt] = useState(initial.prompt ?? "");
  const [negative, setNegative] = useState(initial.negativePrompt ?? "");
  const [ratio, setRatio] = useState<ImageAspectRatio>(initial.aspectRatio ?? "1:1");
  const [count, setCount] = useState(initial.count ?? 1);
  const [fixedSeed, setFixedSeed] = useState(initial.seed !== undefined);
  const [seed, setSeed] = useState<number>(initial.seed ?? randomSeed());
  const [strength, setStrength] = useState(initial.strength ?? DEFAULT_STRENGTH);
  const [input, setInput] = useState<InputImage | null>(initial.input ?? null);
  const { submit: send, busy, failure } = useSubmitGeneration(onSubmitted);
  const [missing, setMissing] = useState<{ prompt?: boolean; input?: boolean }>({});
  const settings = useModelSettings(model, initial);
  const [badSetting, setBadSetting] = useState<string | null>(null);

  const ratios = model?.options.aspectRatios ?? [];
  const maxCount = model?.options.maxCount ?? 1;
  const effectiveRatio = ratios.includes(ratio) ? ratio : (ratios[0] ?? "1:1");
  const effectiveCount = Math.min(count, maxCount);
  // Priced with exactly what is sent, by the function that prices the charge.
  const cost = model ? costOf(model, { count: effectiveCount, aspectRatio: effectiveRatio, ...settings.sent }) : 0;
  const countOptions = useMemo(
    () => Array.from({ length: maxCount }, (_, i) => ({ value: i + 1, label: String(i + 1) })),
    [maxCount],
  );

  if (!model) {
    return <FailureAlert code="unknown_model" fallback={t("messages:msg.generation.unknownModel")} />;
  }

  const submit = async (e?: FormEvent) => {
    e?.preventDefault();
    if (busy) return;
    const lacks = { prompt: !prompt.trim(), input: tool === "image-to-image" && !input };
    setMissing(lacks);
    if (lacks.prompt || lacks.input) {
      document.getElementById(lacks.prompt ? "studio-prompt" : "studio-input")?.focus();
      return;
    }
    const problem = settings.problem();
    setBadSetting(problem ?? null);
    if (problem) return;
    const body: SubmitInput = {
      tool,
      model: model.id,
      prompt,
      aspectRatio: effectiveRatio,
      count: effectiveCount,
      ...(model.options.negativePrompt && negative.trim() ? { negativePrompt: negative } : {}),
      ...(model.options.seed && fixedSeed ? { seed } : {}),
      ...settings.sent,
      ...(tool === "image-to-image"
        ? {
            strength,
            ...(input?.assetId ? { inputAssetId: input.assetId } : { inputUrl: input?.url }),
          }
        : {}),
    } as SubmitInput;
    await send(body);
  };

  return (
    <form className="studio-form" onSubmit={submit} noValidate aria-label={t(`tools.${tool}.title`)}>
      {tool === "image-to-image" && (
        <Field label={t("form.inputImage")}>
          <div id="studio-input" tabIndex={-1}>
            <InputImageField
              value={input}
              onChange={(v) => {
                setInput(v);
                setMissing((m) => ({ ...m, input: false }));
              }}
              invalid={missing.input}
            />
          </div>
          {missing.input && (
            <p className="studio-field-error" role="alert">
              {t("messages:generation.errors.inputRequired")}
            </p>
          )}
        </Field>
      )}
      <Field label={t("form.prompt")} htmlFor="studio-prompt">
        <PromptField
          id="studio-prompt"
          value={prompt}
          onChange={(v) => {
            setPrompt(v);
            if (v.trim()) setMissing((m) => ({ ...m, prompt: false }));
          }}
          onSubmit={() => void submit()}
          placeholder={t(`tools.${tool}.placeholder`)}
          invalid={missing.prompt}
          describedBy="studio-prompt-hint"
        />
        {missing.prompt ? (
          <p className="studio-field-error" role="alert" id="studio-prompt-hint">
            {t("form.promptRequired")}
          </p>
        ) : (
          <p className="studio-hint studio-keys" id="studio-prompt-hint">
            {t("form.shortcut")}
          </p>
        )}
      </Field>
      {model.options.negativePrompt && (
        <Field label={t("form.negativePrompt")} htmlFor="studio-negative">
          <Input.TextArea
            id="studio-negative"
            value={negative}
            onChange={(e) => setNegative(e.target.value)}
            maxLength={2000}
            autoSize={{ minRows: 1, maxRows: 4 }}
            placeholder={t("form.negativePlaceholder")}
          />
        </Field>
      )}
      <Field label={t("form.model")} htmlFor="studio-model">
        <ModelSelect id="studio-model" models={models} value={model.id} onChange={setModelId} />
      </Field>
      <Field label={t("form.aspectRatio")}>
        <Segmented
          className="studio-ratios"
          value={effectiveRatio}
          onChange={(v) => setRatio(v as ImageAspectRatio)}
          options={ratios.map((r) => ({
            value: r,
            label: (
              <span className="ratio-option">
                <RatioIcon ratio={r} />
                {r}
              </span>
            ),
          }))}
        />
      </Field>
      {maxCount > 1 && (
        <Field label={t("form.count")}>
          <Segmented value={effectiveCount} onChange={(v) => setCount(Number(v))} options={countOptions} />
        </Field>
      )}
      {tool === "image-to-image" && model.options.strength && (
        <Field label={t("form.strength", { value: Math.round(strength * 100) })} htmlFor="studio-strength">
          <Slider
            id="studio-strength"
            min={0}
            max={1}
            step={0.05}
            value={strength}
            onChange={setStrength}
            tooltip={{ formatter: (v) => `${Math.round((v ?? 0) * 100)}%` }}
          />
          <p className="studio-hint">{t("form.strengthHint")}</p>
        </Field>
      )}
      <ResolutionField id="studio-resolution" settings={settings} />
      {model.options.seed && (
        <Field label={t("form.seed")}>
          <div className="studio-seed">
            <Switch
              checked={fixedSeed}
              onChange={setFixedSeed}
              checkedChildren={t("form.seedFixed")}
              unCheckedChildren={t("form.seedRandom")}
              aria-label={t("form.seedFixedLabel")}
            />
            {fixedSeed && (
              <>
                <InputNumber
                  min={0}
                  max={MAX_SEED}
                  precision={0}
                  value={seed}
                  onChange={(v) => setSeed(typeof v === "number" ? v : 0)}
                  aria-label={t("form.seed")}
                />
                <Tooltip title={t("form.newSeed")}>
                  <Button
                    icon={<ReloadOutlined />}
                    onClick={() => setSeed(randomSeed())}
                    aria-label={t("form.newSeed")}
                  />
                </Tooltip>
              </>
            )}
          </div>
        </Field>
      )}
      <AdvancedSettings id="studio-advanced" settings={settings} />
      {badSetting && (
        <p className="studio-field-error" role="alert">
          {t("messages:generation.errors.settingInvalid", { model: model.name, setting: badSetting })}
        </p>
      )}
      <SubmitFooter
        cost={cost}
        busy={busy}
        failure={failure}
        fallback={t("messages:msg.generation.submitFailed")}
        icon={<ThunderboltOutlined />}
        label={t("form.generate")}
      />
    </form>
  );
}
