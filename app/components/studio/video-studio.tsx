import { RemixNotice } from "#app/components/studio/remix-notice.tsx";
import { useCallback, useEffect, useMemo, useRef, useState, type FormEvent } from "react";
import { Alert, App, Button, Empty, Segmented, Switch, Typography } from "antd";
import { ReloadOutlined, VideoCameraOutlined } from "#app/components/antd-icons.ts";
import { useTranslation } from "react-i18next";
import { useCancelGeneration } from "#app/components/studio/submit.tsx";
import { SubmitFooter, useSubmitGeneration } from "#app/components/studio/submit.tsx";
import { Link, useLocation } from "react-router";
import { useToast } from "#app/components/feedback.ts";
import { GenerationCard, ratioCss } from "#app/components/studio/generation-card.tsx";
import { LoadMore } from "#app/components/studio/image-tool-page.tsx";
import {
  FailureAlert,
  ModelSelect,
  ProgressBlock,
  DemoNotice,
  OfflineTag,
  PromptField,
  StatusTag,
  usePageLocale,
} from "#app/components/studio/parts.tsx";
import { refreshCredits } from "#app/lib/refresh-credits.ts";
import {
  AdvancedSettings,
  AudioField,
  ResolutionField,
  useModelSettings,
} from "#app/components/studio/model-settings.tsx";
import {
  isOpen,
  resultPath,
  useGenerationList,
  revealResults,
  useLiveGenerations,
  type GenerationView,
  type ModelView,
} from "#app/lib/generations.ts";
import {
  VIDEO_DURATIONS,
  VIDEO_STYLES,
  costOf,
  type SubmitInput,
  type VideoAspectRatio,
  type VideoDuration,
  type VideoStyle,
} from "#common/generation.ts";
import { toolPath, toolSpec, toolsOfKind, type GenerationTool } from "#common/tools.ts";
import type { ParameterValues } from "#common/model-parameters.ts";
import { InputImageField, type InputImage } from "#app/components/studio/input-image.tsx";
import { useServedTools } from "#app/components/studio/chain.tsx";
import { hrefIn } from "#common/locales.ts";

export interface VideoSettings {
  model?: string;
  prompt?: string;
  style?: VideoStyle;
  duration?: VideoDuration;
  aspectRatio?: VideoAspectRatio;
  resolution?: string;
  audio?: boolean;
  /** The model's own settings, as a reused generation ran with them. */
  options?: ParameterValues;
  /** The start frame and the last frame (image to video). */
  input?: InputImage | null;
  end?: InputImage | null;
  /** The public result these settings come from: what is made is linked to it as a remix. */
  remixOf?: { id: string; prompt: string };
}

/** The video tools, one link each: those some offered model serves, when there is more than one. */
function VideoToolSwitch({ tool }: { tool: GenerationTool }) {
  const { t } = useTranslation("studio");
  const { pathname } = useLocation();
  const served = useServedTools();
  const tools = toolsOfKind("video").filter((v) => v === tool || served.includes(v));
  if (tools.length < 2) return null;
  return (
    <nav className="video-tools" aria-label={t("video.tools")}>
      {tools.map((v) => (
        <Link
          key={v}
          to={hrefIn(pathname, toolPath(v))}
          className={`video-tool${v === tool ? " is-current" : ""}`}
          aria-current={v === tool ? "page" : undefined}
        >
          {t(`tools.${v}.title`)}
        </Link>
      ))}
    </nav>
  );
}

/**
 * The video form: for image to video the start image and an optional last frame; the prompt (required), style with
 * a small picture of its look, model, duration, ratio, the model's own settings and the cost.
 */
function VideoForm({
  tool,
  models,
  initial,
  onSubmitted,
}: {
  tool: GenerationTool;
  models: ModelView[];
  initial: VideoSettings;
  onSubmitted: (g: GenerationView) => void;
}) {
  const { t } = useTranslation("studio");
  const first = models.find((m) => m.id === initial.model) ?? models[0];
  const [modelId, setModelId] = useState(first?.id ?? "");
  const model = models.find((m) => m.id === modelId) ?? first;
  const [prompt, setPrompt] = useState(initial.prompt ?? "");
  const [style, setStyle] = useState<VideoStyle>(initial.style ?? "cinematic");
  const [duration, setDuration] = useState<VideoDuration>(initial.duration ?? 5);
  const [ratio, setRatio] = useState<VideoAspectRatio>(initial.aspectRatio ?? "16:9");
  const spec = toolSpec(tool);
  const [input, setInput] = useState<InputImage | null>(initial.input ?? null);
  const [end, setEnd] = useState<InputImage | null>(initial.end ?? null);
  const [missingInput, setMissingInput] = useState(false);
  const { submit: send, busy, failure } = useSubmitGeneration(onSubmitted);
  const [missingPrompt, setMissingPrompt] = useState(false);
  const settings = useModelSettings(model, initial);
  const [badSetting, setBadSetting] = useState<string | null>(null);

  if (!model) return <FailureAlert code="unknown_model" fallback={t("messages:msg.generation.unknownModel")} />;
  const styles = (model.options.styles ?? VIDEO_STYLES) as readonly VideoStyle[];
  const durations = (model.options.durations ?? VIDEO_DURATIONS) as readonly VideoDuration[];
  const ratios = model.options.aspectRatios as readonly VideoAspectRatio[];
  const effectiveDuration = durations.includes(duration) ? duration : durations[0]!;
  const effectiveRatio = ratios.includes(ratio) ? ratio : ratios[0]!;
  const effectiveStyle = styles.includes(style) ? style : styles[0]!;
  const audio = model.options.audio ? { audio: settings.audio } : {};
  // Priced with exactly what is sent, by the function that prices the charge.
  const cost = costOf(model, {
    count: 1,
    duration: effectiveDuration,
    aspectRatio: effectiveRatio,
    ...settings.sent,
    ...audio,
    tool,
  });

  const submit = async (e?: FormEvent) => {
    e?.preventDefault();
    if (busy) return;
    const lacksInput = spec.image && !input;
    setMissingInput(lacksInput);
    if (!prompt.trim() || lacksInput) {
      setMissingPrompt(!prompt.trim());
      document.getElementById(lacksInput ? "video-input" : "video-prompt")?.focus();
      return;
    }
    const problem = settings.problem();
    setBadSetting(problem ?? null);
    if (problem) return;
    const image = (given: InputImage | null, asset: "inputAssetId" | "endAssetId", url: "inputUrl" | "endUrl") =>
      given ? (given.assetId ? { [asset]: given.assetId } : { [url]: given.url }) : {};
    const body: SubmitInput = {
      tool,
      model: model.id,
      prompt,
      style: effectiveStyle,
      duration: effectiveDuration,
      aspectRatio: effectiveRatio,
      ...settings.sent,
      ...audio,
      ...(spec.image ? image(input, "inputAssetId", "inputUrl") : {}),
      ...(spec.endImage ? image(end, "endAssetId", "endUrl") : {}),
      ...(initial.remixOf ? { remixOf: initial.remixOf.id } : {}),
    };
    await send(body);
  };

  return (
    <form className="studio-form" onSubmit={submit} noValidate aria-label={t(`tools.${tool}.title`)}>
      {initial.remixOf && <RemixNotice source={initial.remixOf} />}
      {spec.image && (
        <div className="studio-field">
          <span className="studio-label" id="video-input-label">
            {t("form.startImage")}
          </span>
          <div id="video-input" tabIndex={-1} role="group" aria-labelledby="video-input-label">
            <InputImageField
              value={input}
              onChange={(v) => {
                setInput(v);
                if (v) setMissingInput(false);
              }}
              invalid={missingInput}
              takesPaste={!input}
            />
          </div>
          {missingInput && (
            <p className="studio-field-error" role="alert">
              {t("messages:generation.errors.startImageRequired")}
            </p>
          )}
        </div>
      )}
      {spec.endImage && (
        <div className="studio-field">
          <span className="studio-label" id="video-end-label">
            {t("form.endImage")}
          </span>
          <div id="video-end" role="group" aria-labelledby="video-end-label">
            <InputImageField value={end} onChange={setEnd} takesPaste={Boolean(input) && !end} />
          </div>
        </div>
      )}
      <div className="studio-field">
        <label className="studio-label" htmlFor="video-prompt">
          {t("form.prompt")}
        </label>
        <PromptField
          id="video-prompt"
          value={prompt}
          onChange={(v) => {
            setPrompt(v);
            if (v.trim()) setMissingPrompt(false);
          }}
          onSubmit={() => void submit()}
          placeholder={t(`tools.${tool}.placeholder`)}
          invalid={missingPrompt}
          describedBy="video-prompt-hint"
        />
        {missingPrompt ? (
          <p className="studio-field-error" role="alert" id="video-prompt-hint">
            {t("messages:msg.generation.videoPromptRequired")}
          </p>
        ) : (
          <p className="studio-hint studio-keys" id="video-prompt-hint">
            {t("form.shortcut")}
          </p>
        )}
      </div>
      <fieldset className="studio-field studio-fieldset">
        <legend className="studio-label">{t("form.style")}</legend>
        <div className="video-styles" role="radiogroup" aria-label={t("form.style")}>
          {styles.map((s) => (
            <label key={s} className={`video-style${s === effectiveStyle ? " is-selected" : ""}`}>
              <input
                type="radio"
                name="video-style"
                value={s}
                checked={s === effectiveStyle}
                onChange={() => setStyle(s)}
                className="sr-only"
              />
              <span className={`video-style-swatch video-style-${s}`} aria-hidden />
              <span className="video-style-name">{t(`styles.${s}.name`)}</span>
              <span className="video-style-hint">{t(`styles.${s}.hint`)}</span>
            </label>
          ))}
        </div>
      </fieldset>
      <div className="studio-field">
        <label className="studio-label" htmlFor="video-model">
          {t("form.model")}
        </label>
        <ModelSelect id="video-model" models={models} value={model.id} onChange={setModelId} />
      </div>
      <div className="studio-field">
        <span className="studio-label">{t("form.duration")}</span>
        <Segmented
          value={effectiveDuration}
          onChange={(v) => setDuration(Number(v) as VideoDuration)}
          options={durations.map((d) => ({ value: d, label: t("seconds", { count: d }) }))}
        />
      </div>
      <div className="studio-field">
        <span className="studio-label">{t("form.aspectRatio")}</span>
        <Segmented
          value={effectiveRatio}
          onChange={(v) => setRatio(v as VideoAspectRatio)}
          options={ratios.map((r) => ({ value: r, label: r }))}
        />
      </div>
      <ResolutionField id="video-resolution" settings={settings} />
      <AudioField id="video-audio" settings={settings} available={Boolean(model.options.audio)} />
      <AdvancedSettings id="video-advanced" settings={settings} />
      {badSetting && (
        <p className="studio-field-error" role="alert">
          {t("messages:generation.errors.settingInvalid", { model: model.name, setting: badSetting })}
        </p>
      )}
      <SubmitFooter
        cost={cost}
        busy={busy}
        failure={failure}
        fallback={t("messages:msg.generation.videoRequestFailed")}
        icon={<VideoCameraOutlined />}
        label={t("form.generateVideo")}
      />
    </form>
  );
}

/** A finished video plays in place; one still running shows its progress. */
function VideoCard({
  generation,
  onCancel,
  canceling,
}: {
  generation: GenerationView;
  onCancel: (g: GenerationView) => void;
  canceling: boolean;
}) {
  const { t } = useTranslation("studio");
  const { pathname } = useLocation();
  const video = generation.status === "succeeded" ? generation.outputs[0] : undefined;
  if (!video) return <GenerationCard generation={generation} onCancel={onCancel} canceling={canceling} />;
  return (
    <article className="gen-card" data-status={generation.status} data-id={generation.id}>
      <video
        className="gen-card-video"
        src={video.url}
        poster={video.thumbUrl ?? undefined}
        controls
        playsInline
        preload="none"
        style={{ aspectRatio: ratioCss(generation.params.aspectRatio) }}
      />
      <div className="gen-card-body">
        <Link to={hrefIn(pathname, resultPath(generation))} className="gen-card-prompt" title={generation.prompt}>
          {generation.prompt}
        </Link>
        <div className="gen-card-meta">
          <StatusTag status={generation.status} />
          {generation.model.offline && <OfflineTag />}
          {generation.params.style && <span>{t(`styles.${generation.params.style}.name`)}</span>}
          {generation.params.duration && <span>{t("seconds", { count: generation.params.duration })}</span>}
        </div>
      </div>
    </article>
  );
}

/**
 * The running video, watched: every 3 s while "auto check" is on and the page is visible, a "check now" button
 * when it is off, and after the configured time a timeout message with a way to check again.
 */
function VideoTask({
  generation,
  timeoutSeconds,
  onChange,
}: {
  generation: GenerationView;
  timeoutSeconds: number;
  onChange: (g: GenerationView) => void;
}) {
  const { t } = useTranslation("studio");
  const { pathname } = useLocation();
  const locale = usePageLocale();
  const toast = useToast();
  const { notification } = App.useApp();
  const [auto, setAuto] = useState(true);
  const [since, setSince] = useState(() => Date.now());
  const [timedOut, setTimedOut] = useState(false);
  const failedOnce = useRef(false);
  const g = generation;
  const open = isOpen(g);

  const { checkNow } = useLiveGenerations([g], {
    locale,
    enabled: auto && !timedOut,
    onChange: (next, before) => {
      failedOnce.current = false;
      onChange(next);
      if (next.status !== before.status && !isOpen(next)) {
        void refreshCredits();
        if (next.status === "succeeded") {
          notification.success({ title: t("messages:msg.generation.videoCompleted"), description: next.prompt });
        } else if (next.status === "failed") {
          toast.error(
            next.error ? t(next.error.messageKey, { ns: "common" }) : t("messages:msg.generation.videoRequestFailed"),
          );
        }
      }
    },
    onError: () => {
      if (!failedOnce.current) toast.error(t("messages:msg.generation.queryStatusFailed"));
      failedOnce.current = true;
    },
  });

  // Checking stops after the configured time; the user can ask again.
  useEffect(() => {
    if (!open || timedOut) return;
    const timer = window.setTimeout(() => setTimedOut(true), Math.max(0, since + timeoutSeconds * 1000 - Date.now()));
    return () => window.clearTimeout(timer);
  }, [open, timedOut, since, timeoutSeconds]);

  const checkAgain = () => {
    setSince(Date.now());
    setTimedOut(false);
    checkNow();
  };

  if (!open) return null;
  return (
    <section className="video-task" aria-live="polite" data-testid="video-task">
      <div className="video-task-head">
        <StatusTag status={g.status} />
        <strong>{g.status === "queued" ? t("video.queued") : t("messages:msg.generation.videoProcessing")}</strong>
        <Link to={hrefIn(pathname, resultPath(g))} className="video-task-link">
          {t("video.details")}
        </Link>
      </div>
      <p className="video-task-prompt">{g.prompt}</p>
      <ProgressBlock generation={g} />
      {timedOut ? (
        <Alert
          type="warning"
          showIcon
          role="alert"
          title={t("messages:msg.generation.queryTimeout")}
          action={
            <Button size="small" icon={<ReloadOutlined />} onClick={checkAgain}>
              {t("video.checkAgain")}
            </Button>
          }
        />
      ) : (
        <div className="video-task-controls">
          <label className="video-auto">
            <Switch checked={auto} onChange={setAuto} size="small" />
            <span>{t("video.autoCheck")}</span>
          </label>
          {!auto && (
            <Button size="small" icon={<ReloadOutlined />} onClick={checkNow}>
              {t("video.checkNow")}
            </Button>
          )}
        </div>
      )}
    </section>
  );
}

/**
 * The video page: the form; the task just started, watched; and the list of the user's videos (on the workspace,
 * all of them with infinite scroll; on the create page, the ones started there).
 */
export function VideoStudio({
  tool,
  models,
  initial,
  history,
  current,
  workspace,
  timeoutSeconds,
  listFailed,
}: {
  tool: GenerationTool;
  models: ModelView[];
  initial: VideoSettings;
  history: { items: GenerationView[]; nextCursor: string | null };
  current: GenerationView | null;
  workspace: boolean;
  timeoutSeconds: number;
  listFailed: boolean;
}) {
  const { t } = useTranslation("studio");
  const { pathname } = useLocation();
  const locale = usePageLocale();
  const start = useMemo(
    () => (workspace ? history : { items: current ? [current] : [], nextCursor: null }),
    [workspace, history, current],
  );
  const list = useGenerationList(start, { kind: "video" }, locale);
  const [watching, setWatching] = useState<string | null>(current && isOpen(current) ? current.id : null);
  const { cancel: onCancel, canceling } = useCancelGeneration((g) => list.replace(g));
  const watched = list.items.find((g) => g.id === watching) ?? null;

  const onSubmitted = useCallback(
    (g: GenerationView) => {
      list.prepend(g);
      revealResults();
      setWatching(g.id);
      if (!workspace) {
        const url = new URL(window.location.href);
        url.searchParams.set("id", g.id);
        window.history.replaceState(window.history.state, "", url);
      }
    },
    [list, workspace],
  );

  // The watched task polls on its own schedule; the other running ones in the list every 3 s too.
  useLiveGenerations(
    list.items.filter((g) => g.id !== watching),
    {
      locale,
      onChange: (g) => list.replace(g),
      onError: () => undefined,
    },
  );

  return (
    <div className="dash-page studio">
      <header className="studio-head">
        <div>
          <Typography.Title level={1} className="dash-title">
            {t(`tools.${tool}.title`)}
          </Typography.Title>
          <Typography.Text type="secondary">{t(`tools.${tool}.subtitle`)}</Typography.Text>
        </div>
        {!workspace && (
          <nav className="studio-head-links" aria-label={t("nav.videos")}>
            <Link to={hrefIn(pathname, toolPath(tool))}>{t("nav.videos")}</Link>
          </nav>
        )}
      </header>
      <div className="studio-layout">
        <section className="studio-panel" aria-label={t("form.settings")}>
          <VideoToolSwitch tool={tool} />
          <VideoForm tool={tool} models={models} initial={initial} onSubmitted={onSubmitted} />
        </section>
        <section className="studio-results" aria-label={t("nav.videos")}>
          {watched && (
            <VideoTask key={watched.id} generation={watched} timeoutSeconds={timeoutSeconds} onChange={list.replace} />
          )}
          <Typography.Title level={2} className="studio-results-title">
            {workspace ? t("nav.videos") : t("results.title")}
          </Typography.Title>
          {listFailed ? (
            <Alert type="error" showIcon role="alert" title={t("messages:msg.generation.queryVideoListFailed")} />
          ) : list.items.length === 0 ? (
            <Empty
              className="studio-empty"
              image={Empty.PRESENTED_IMAGE_SIMPLE}
              description={t(workspace ? "video.empty" : "video.emptyCreate")}
            />
          ) : (
            <>
              {list.items.some((g) => g.model.offline && g.status === "succeeded") && <DemoNotice list />}
              <div className="gen-grid">
                {list.items.map((g) => (
                  <VideoCard key={g.id} generation={g} onCancel={onCancel} canceling={canceling === g.id} />
                ))}
              </div>
            </>
          )}
          {workspace && list.hasMore && (
            <LoadMore
              onMore={() => void list.loadMore()}
              loading={list.loading}
              failed={list.failed}
              failedText={t("messages:msg.generation.queryVideoListFailed")}
            />
          )}
        </section>
      </div>
    </div>
  );
}
