import { RemixNotice } from "#app/components/studio/remix-notice.tsx";
import { useMemo, useState, type CSSProperties, type FormEvent, type ReactNode } from "react";
import { Button, Input, InputNumber, Segmented, Slider, Switch, Tooltip } from "antd";
import { ThunderboltOutlined, ReloadOutlined } from "#app/components/antd-icons.ts";
import { useTranslation } from "react-i18next";
import { SubmitFooter, useSubmitGeneration } from "#app/components/studio/submit.tsx";
import { InputImageField, type InputImage } from "#app/components/studio/input-image.tsx";
import { MaskField, type MaskValue } from "#app/components/studio/mask-field.tsx";
import { LazyMaskEditor } from "#app/components/studio/mask-editor-lazy.tsx";
import { FailureAlert, ModelSelect, PromptField, usePageLocale } from "#app/components/studio/parts.tsx";
import { AdvancedSettings, ResolutionField, useModelSettings } from "#app/components/studio/model-settings.tsx";
import { describeFailure, uploadInputImage, type GenerationView, type ModelView } from "#app/lib/generations.ts";
import { useToast } from "#app/components/feedback.ts";
import type { ParameterValues } from "#common/model-parameters.ts";
import {
  DEFAULT_STRENGTH,
  IMAGE_ASPECT_RATIOS,
  MAX_SEED,
  costOf,
  nearestRatio,
  paddingTo,
  type ExtendPadding,
  type ImageAspectRatio,
  type SubmitInput,
} from "#common/generation.ts";
import {
  EXTEND_MAX_SIDE_PIXELS,
  UPSCALE_FACTORS,
  takes,
  toolSpec,
  type GenerationTool,
  type UpscaleFactor,
} from "#common/tools.ts";

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
  /** Upscaling: how many times larger. */
  scale?: number;
  /** The public result these settings come from: what is made is linked to it as a remix. */
  remixOf?: { id: string; prompt: string };
}

const randomSeed = () => Math.floor(Math.random() * MAX_SEED);

/** A small drawing of each ratio, so the choice reads at a glance. */
function RatioIcon({ ratio }: { ratio: string }) {
  const [w, h] = ratio.split(":").map(Number) as [number, number];
  const scale = 14 / Math.max(w, h);
  return <span className="ratio-icon" style={{ width: w * scale, height: h * scale }} aria-hidden />;
}

/** Ratios as choices, each with its drawing. */
const ratioOptions = (list: readonly ImageAspectRatio[]) =>
  list.map((r) => ({
    value: r,
    label: (
      <span className="ratio-option">
        <RatioIcon ratio={r} />
        {r}
      </span>
    ),
  }));

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

const SIDES = ["top", "right", "bottom", "left"] as const;
/** The side of the box the extension's preview is drawn in, in CSS pixels. */
const PREVIEW_BOX = 96;
const NO_PADDING: ExtendPadding = { top: 0, right: 0, bottom: 0, left: 0 };

/** "2048 × 2048" */
const sizeText = (width: number, height: number) => `${width} × ${height}`;

/**
 * Where the input image sits on the extended canvas, drawn to scale: the canvas, and the image inside it. Without
 * the image's size (an address the server reads), a square stands in for it.
 */
function ExtendPreview({
  input,
  picture,
  padding,
}: {
  input: { width: number; height: number } | null;
  /** The input's own picture, drawn where it sits. */
  picture: string | undefined;
  padding: ExtendPadding;
}) {
  const image = input ?? { width: 512, height: 512 };
  const width = image.width + padding.left + padding.right;
  const height = image.height + padding.top + padding.bottom;
  const long = Math.max(width, height);
  const percent = (n: number, of: number) => `${(n / of) * 100}%`;
  const inner: CSSProperties = {
    left: percent(padding.left, width),
    top: percent(padding.top, height),
    width: percent(image.width, width),
    height: percent(image.height, height),
    ...(picture ? { backgroundImage: `url("${picture}")` } : {}),
  };
  return (
    <div className="extend-preview-frame" aria-hidden>
      <div
        className="extend-preview"
        style={{ width: (PREVIEW_BOX * width) / long, height: (PREVIEW_BOX * height) / long }}
      >
        <div className="extend-preview-image" style={inner} />
      </div>
    </div>
  );
}

/**
 * An image tool's form, its parts as the tool's row in the table of tools says: the input image, the mask, the new
 * canvas or the scale factor where the tool takes them; the prompt (required, optional or none); and the model's
 * own settings for the parameters the tool takes. The cost is what the server charges for exactly what is sent.
 * Submitting keeps everything typed, whatever the answer.
 */
export function ImageStudioForm({
  tool,
  models,
  initial,
  onSubmitted,
}: {
  tool: GenerationTool;
  models: ModelView[];
  initial: ImageSettings;
  onSubmitted: (g: GenerationView) => void;
}) {
  const { t } = useTranslation("studio");
  const locale = usePageLocale();
  const toast = useToast();
  const spec = toolSpec(tool);
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
  const [mask, setMask] = useState<MaskValue | null>(null);
  const [extendMode, setExtendMode] = useState<"ratio" | "pixels">("ratio");
  const [extendTo, setExtendTo] = useState<ImageAspectRatio>("16:9");
  const [padding, setPadding] = useState<ExtendPadding>(NO_PADDING);
  const [scale, setScale] = useState<number>(initial.scale ?? 2);
  const { submit: send, busy, failure } = useSubmitGeneration(onSubmitted);
  const [missing, setMissing] = useState<{ prompt?: boolean; input?: boolean; mask?: boolean; extend?: boolean }>({});
  const settings = useModelSettings(model, initial);
  const [badSetting, setBadSetting] = useState<string | null>(null);

  const uses = (param: Parameters<typeof takes>[1]) => takes(tool, param);
  const ratios = model?.options.aspectRatios ?? [];
  const maxCount = uses("count") ? (model?.options.maxCount ?? 1) : 1;
  const effectiveRatio = ratios.includes(ratio) ? ratio : (ratios[0] ?? "1:1");
  const effectiveCount = Math.min(count, maxCount);
  const size = input?.width && input.height ? { width: input.width, height: input.height } : null;
  // A new ratio for the canvas: any but the image's own (which would add nothing).
  const extendRatios = IMAGE_ASPECT_RATIOS.filter((r) => !size || Object.values(paddingTo(size, r)).some((n) => n > 0));
  const effectiveExtendTo = extendRatios.includes(extendTo) ? extendTo : extendRatios[0];
  const extension =
    extendMode === "ratio" ? (effectiveExtendTo && size ? paddingTo(size, effectiveExtendTo) : null) : padding;
  const extending = extendMode === "ratio" ? Boolean(effectiveExtendTo) : SIDES.some((s) => padding[s] > 0);
  const scales = model?.options.scales ?? UPSCALE_FACTORS;
  const effectiveScale = (scales as readonly number[]).includes(scale) ? scale : (scales[0] ?? 2);
  // The sent settings the tool takes (an upscaler's request has no resolution).
  const sentSettings = {
    ...(uses("resolution") && settings.sent.resolution !== undefined ? { resolution: settings.sent.resolution } : {}),
    ...(uses("options") && settings.sent.options ? { options: settings.sent.options } : {}),
  };
  // The shape the server records for a tool without a ratio of its own: its input's, or the extended canvas's.
  const shape: ImageAspectRatio | undefined = size
    ? extension && spec.extend
      ? nearestRatio(size.width + extension.left + extension.right, size.height + extension.top + extension.bottom)
      : nearestRatio(size.width, size.height)
    : undefined;
  // Priced with exactly what is sent, by the function that prices the charge.
  const cost = model
    ? costOf(model, {
        count: effectiveCount,
        aspectRatio: uses("aspectRatio") ? effectiveRatio : (shape ?? "1:1"),
        ...sentSettings,
        tool,
        ...(spec.scale ? { scale: effectiveScale as UpscaleFactor } : {}),
      })
    : 0;
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
    const lacks = {
      prompt: spec.prompt === "required" && !prompt.trim(),
      input: spec.image && !input,
      mask: spec.mask && !mask,
      extend: spec.extend && !extending,
    };
    setMissing(lacks);
    const lacking = (["prompt", "input", "mask", "extend"] as const).find((k) => lacks[k]);
    if (lacking) {
      document.getElementById(`studio-${lacking}`)?.focus();
      return;
    }
    const problem = settings.problem();
    setBadSetting(problem ?? null);
    if (problem) return;
    /** A painted mask goes up once, when the form is first sent with it. */
    const maskAsset = async (m: MaskValue) => {
      if (m.assetId) return m.assetId;
      const upload = await uploadInputImage(m.file, locale, { mask: true });
      setMask((current) => (current?.file === m.file ? { ...current, assetId: upload.id } : current));
      return upload.id;
    };
    let maskAssetId: string | undefined;
    try {
      maskAssetId = spec.mask && mask ? await maskAsset(mask) : undefined;
    } catch (error) {
      toast.error(describeFailure(error).message ?? t("input.uploadFailed"));
      return;
    }
    const body: SubmitInput = {
      tool,
      model: model.id,
      ...(spec.prompt !== "none" ? { prompt } : {}),
      ...(uses("aspectRatio") ? { aspectRatio: effectiveRatio } : {}),
      ...(uses("count") ? { count: effectiveCount } : {}),
      ...(uses("negativePrompt") && model.options.negativePrompt && negative.trim()
        ? { negativePrompt: negative }
        : {}),
      ...(uses("seed") && model.options.seed && fixedSeed ? { seed } : {}),
      ...sentSettings,
      ...(uses("strength") ? { strength } : {}),
      ...(spec.image ? (input?.assetId ? { inputAssetId: input.assetId } : { inputUrl: input?.url }) : {}),
      ...(maskAssetId ? { maskAssetId } : {}),
      ...(spec.extend ? (extendMode === "ratio" ? { extendTo: effectiveExtendTo } : { extend: padding }) : {}),
      ...(spec.scale ? { scale: effectiveScale } : {}),
      ...(initial.remixOf ? { remixOf: initial.remixOf.id } : {}),
    };
    await send(body);
  };

  const error = (text: string) => (
    <p className="studio-field-error" role="alert">
      {text}
    </p>
  );

  return (
    <form className="studio-form" onSubmit={submit} noValidate aria-label={t(`tools.${tool}.title`)}>
      {initial.remixOf && <RemixNotice source={initial.remixOf} />}
      {spec.image && (
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
          {missing.input && error(t("messages:generation.errors.inputRequired"))}
        </Field>
      )}
      {spec.mask && (
        <Field label={t("maskField.label")}>
          <div id="studio-mask" tabIndex={-1}>
            <MaskField
              image={input?.full && size ? { url: input.full, ...size } : null}
              value={mask}
              onChange={(v) => {
                setMask(v);
                setMissing((m) => ({ ...m, mask: false }));
              }}
              invalid={missing.mask}
              editor={LazyMaskEditor}
            />
          </div>
          {missing.mask && error(t("messages:generation.errors.maskRequired"))}
        </Field>
      )}
      {spec.extend && (
        <Field label={t("extend.label")}>
          <div id="studio-extend" tabIndex={-1} className="studio-extend">
            <Segmented
              value={extendMode}
              onChange={(v) => {
                setExtendMode(v === "pixels" ? "pixels" : "ratio");
                setMissing((m) => ({ ...m, extend: false }));
              }}
              options={[
                { value: "ratio", label: t("extend.byRatio") },
                { value: "pixels", label: t("extend.byPixels") },
              ]}
            />
            {extendMode === "ratio" ? (
              <Segmented
                className="studio-ratios"
                value={effectiveExtendTo}
                onChange={(v) => setExtendTo(v as ImageAspectRatio)}
                options={ratioOptions(extendRatios)}
              />
            ) : (
              <div className="studio-extend-sides">
                {SIDES.map((side) => (
                  <label key={side} className="studio-extend-side">
                    <span>{t(`extend.${side}`)}</span>
                    <InputNumber
                      id={`studio-extend-${side}`}
                      min={0}
                      max={EXTEND_MAX_SIDE_PIXELS}
                      step={64}
                      precision={0}
                      value={padding[side]}
                      onChange={(v) => {
                        setPadding((p) => ({ ...p, [side]: typeof v === "number" ? v : 0 }));
                        setMissing((m) => ({ ...m, extend: false }));
                      }}
                      suffix="px"
                    />
                  </label>
                ))}
              </div>
            )}
            <div className="studio-extend-result">
              <ExtendPreview input={size} picture={input?.preview} padding={extension ?? NO_PADDING} />
              {size && extension && (
                <p className="studio-hint" data-testid="extend-size">
                  {t("extend.newSize", {
                    size: sizeText(
                      size.width + extension.left + extension.right,
                      size.height + extension.top + extension.bottom,
                    ),
                  })}
                </p>
              )}
            </div>
          </div>
          {missing.extend && error(t("messages:generation.errors.extendRequired"))}
        </Field>
      )}
      {spec.scale && (
        <Field label={t("upscale.label")}>
          <Segmented
            id="studio-scale"
            value={effectiveScale}
            onChange={(v) => setScale(Number(v))}
            options={scales.map((f) => ({ value: f, label: `×${f}` }))}
          />
          {size && (
            <p className="studio-hint" data-testid="upscale-size">
              {t("upscale.result", { size: sizeText(size.width * effectiveScale, size.height * effectiveScale) })}
            </p>
          )}
        </Field>
      )}
      {spec.prompt !== "none" && (
        <Field label={spec.prompt === "optional" ? t("form.promptOptional") : t("form.prompt")} htmlFor="studio-prompt">
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
      )}
      {uses("negativePrompt") && model.options.negativePrompt && (
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
      {uses("aspectRatio") && (
        <Field label={t("form.aspectRatio")}>
          <Segmented
            className="studio-ratios"
            value={effectiveRatio}
            onChange={(v) => setRatio(v as ImageAspectRatio)}
            options={ratioOptions(ratios)}
          />
        </Field>
      )}
      {maxCount > 1 && (
        <Field label={t("form.count")}>
          <Segmented value={effectiveCount} onChange={(v) => setCount(Number(v))} options={countOptions} />
        </Field>
      )}
      {uses("strength") && model.options.strength && (
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
      {uses("resolution") && <ResolutionField id="studio-resolution" settings={settings} />}
      {uses("seed") && model.options.seed && (
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
      {uses("options") && <AdvancedSettings id="studio-advanced" settings={settings} />}
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
        label={t(spec.prompt === "none" || !uses("aspectRatio") ? `tools.${tool}.action` : "form.generate")}
      />
    </form>
  );
}
