import { useState, type ReactNode } from "react";
import { Button, Dropdown, Segmented, Space } from "antd";
import {
  AppstoreAddOutlined,
  BgColorsOutlined,
  BranchesOutlined,
  ExpandOutlined,
  EditOutlined,
  EllipsisOutlined,
  PlayCircleOutlined,
  ZoomInOutlined,
} from "#app/components/antd-icons.ts";
import { useTranslation } from "react-i18next";
import { Link, useLocation, useNavigate, useRouteLoaderData } from "react-router";
import type { loader as dashboardLoader } from "#app/routes/dashboard/layout.tsx";
import { useToast } from "#app/components/feedback.ts";
import { usePageLocale } from "#app/components/studio/parts.tsx";
import { refreshCredits } from "#app/lib/refresh-credits.ts";
import {
  describeFailure,
  newIdempotencyKey,
  resultPath,
  submitGeneration,
  type GenerationView,
} from "#app/lib/generations.ts";
import { MAX_SEED, type SubmitInput } from "#common/generation.ts";
import { takes, toolPath, toolSpec, type GenerationTool } from "#common/tools.ts";
import { hrefIn } from "#common/locales.ts";

/** What the dashboard offers the viewer (its layout's loader): the tools served, the models that take a seed. */
function useStudioOffer() {
  return useRouteLoaderData<typeof dashboardLoader>("routes/dashboard/layout")?.studio;
}

/** The tools some offered model serves. */
export function useServedTools(): GenerationTool[] {
  return useStudioOffer()?.tools ?? [];
}

/** The tools an image result opens with the image in it, with each one's action. */
const FROM_IMAGE: { tool: GenerationTool; label: string; icon: ReactNode }[] = [
  { tool: "image-to-video", label: "actions.animate", icon: <PlayCircleOutlined /> },
  { tool: "inpaint", label: "actions.edit", icon: <EditOutlined /> },
  { tool: "outpaint", label: "actions.extend", icon: <ExpandOutlined /> },
  { tool: "upscale", label: "actions.upscale", icon: <ZoomInOutlined /> },
  { tool: "remove-background", label: "actions.removeBackground", icon: <BgColorsOutlined /> },
];

/** Where a tool opens with an image of the user's in it. */
export const openWith = (tool: GenerationTool, assetId: string) =>
  `${toolPath(tool)}?input=${encodeURIComponent(assetId)}`;

/**
 * The same request as a result (tool, model, prompt, settings, images), with a new seed where the model takes one,
 * named as its variation: the server links it to the result as its parent.
 */
export function variationOf(g: GenerationView, seeded: boolean): SubmitInput {
  const p = g.params;
  const tool = g.tool;
  const spec = toolSpec(tool);
  const when = <T,>(on: boolean, value: T) => (on ? value : {});
  return {
    tool,
    model: g.model.id,
    ...when(spec.prompt !== "none", { prompt: g.prompt }),
    ...when(takes(tool, "negativePrompt") && Boolean(g.negativePrompt), { negativePrompt: g.negativePrompt! }),
    ...when(takes(tool, "aspectRatio"), { aspectRatio: p.aspectRatio }),
    ...when(takes(tool, "count"), { count: p.count }),
    ...when(takes(tool, "strength") && p.strength !== undefined, { strength: p.strength }),
    ...when(takes(tool, "style") && p.style !== undefined, { style: p.style }),
    ...when(takes(tool, "duration") && p.duration !== undefined, { duration: p.duration }),
    ...when(takes(tool, "resolution") && p.resolution !== undefined, { resolution: p.resolution }),
    ...when(takes(tool, "audio") && p.audio !== undefined, { audio: p.audio }),
    ...when(takes(tool, "options") && p.options !== undefined, { options: p.options }),
    ...when(takes(tool, "seed") && seeded, { seed: Math.floor(Math.random() * MAX_SEED) }),
    ...when(spec.image && Boolean(g.input), { inputAssetId: g.input?.id }),
    ...when(spec.mask && Boolean(g.mask), { maskAssetId: g.mask?.id }),
    ...when(spec.endImage && Boolean(g.end), { endAssetId: g.end?.id }),
    ...when(spec.scale && p.scale !== undefined, { scale: p.scale }),
    ...when(spec.extend && p.extend !== undefined, { extend: p.extend }),
    variationOf: g.id,
  };
}

/** Starts a variation of a result, then opens the new job's page (the balance refreshed). */
export function useVariation() {
  const { t } = useTranslation("studio");
  const locale = usePageLocale();
  const toast = useToast();
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const seeded = useStudioOffer()?.seeded ?? [];
  const [busy, setBusy] = useState<string | null>(null);
  const vary = async (g: GenerationView) => {
    if (busy) return;
    setBusy(g.id);
    try {
      const body = variationOf(g, seeded.includes(g.model.id));
      const made = await submitGeneration(body, { locale, idempotencyKey: newIdempotencyKey() });
      void refreshCredits();
      toast.success(t("chain.variationStarted"));
      void navigate(hrefIn(pathname, resultPath(made)));
    } catch (error) {
      toast.error(describeFailure(error).message ?? t("messages:msg.generation.submitFailed"));
    } finally {
      setBusy(null);
    }
  };
  return { vary, busy };
}

/**
 * What can be made from a finished result: for an image, the tools that start from one (those some offered model
 * serves), with the image in them; for any result, variations. With several images, which one the tools take.
 */
export function ResultActions({ generation: g }: { generation: GenerationView }) {
  const { t } = useTranslation("studio");
  const { pathname } = useLocation();
  const navigate = useNavigate();
  const served = useServedTools();
  const { vary, busy } = useVariation();
  const [chosen, setChosen] = useState(0);
  if (g.status !== "succeeded" || g.outputs.length === 0) return null;
  const images = g.kind === "image" ? g.outputs.filter((o) => o.mimeType.startsWith("image/")) : [];
  const image = images[Math.min(chosen, images.length - 1)];
  const tools = image ? FROM_IMAGE.filter((a) => served.includes(a.tool)) : [];
  return (
    <section className="result-chain-actions" aria-label={t("chain.actions")}>
      {tools.length > 0 && images.length > 1 && (
        <div className="result-chain-pick">
          <span className="studio-hint">{t("chain.whichImage")}</span>
          <Segmented
            size="small"
            value={chosen}
            onChange={(v) => setChosen(Number(v))}
            options={images.map((_, i) => ({ value: i, label: String(i + 1) }))}
          />
        </div>
      )}
      <Space wrap>
        {image &&
          tools.map((a) => {
            const to = hrefIn(pathname, openWith(a.tool, image.id));
            return (
              <Button
                key={a.tool}
                icon={a.icon}
                href={to}
                data-tool={a.tool}
                onClick={(e) => {
                  e.preventDefault();
                  void navigate(to);
                }}
              >
                {t(a.label)}
              </Button>
            );
          })}
        <Button icon={<AppstoreAddOutlined />} loading={busy === g.id} onClick={() => void vary(g)}>
          {t("actions.variations")}
        </Button>
      </Space>
    </section>
  );
}

/** The tools that start from an image, in the enlarged view of one of a result's images (its index). */
export function LightboxActions({ generation: g, index }: { generation: GenerationView; index: number }) {
  const { t } = useTranslation("studio");
  const { pathname } = useLocation();
  const navigate = useNavigate();
  const served = useServedTools();
  const image = g.outputs[index];
  if (!image || !image.mimeType.startsWith("image/")) return null;
  return (
    <Space wrap className="result-lightbox-tools">
      {FROM_IMAGE.filter((a) => served.includes(a.tool)).map((a) => {
        const to = hrefIn(pathname, openWith(a.tool, image.id));
        return (
          <Button
            key={a.tool}
            size="small"
            icon={a.icon}
            href={to}
            onClick={(e) => {
              e.preventDefault();
              void navigate(to);
            }}
          >
            {t(a.label)}
          </Button>
        );
      })}
    </Space>
  );
}

/** The same actions, folded into a small menu on a result's card. */
export function CardActions({ generation: g }: { generation: GenerationView }) {
  const { t } = useTranslation("studio");
  const { pathname } = useLocation();
  const navigate = useNavigate();
  const offer = useStudioOffer();
  const served = offer?.tools ?? [];
  const { vary, busy } = useVariation();
  // Outside the dashboard (a page of someone else's) there is nothing to act with.
  if (g.status !== "succeeded" || g.outputs.length === 0 || !offer) return null;
  const image = g.kind === "image" ? g.outputs.find((o) => o.mimeType.startsWith("image/")) : undefined;
  const tools = image ? FROM_IMAGE.filter((a) => served.includes(a.tool)) : [];
  const items = [
    ...tools.map((a) => ({ key: a.tool, icon: a.icon, label: t(a.label) })),
    { key: "variations", icon: <AppstoreAddOutlined />, label: t("actions.variations") },
  ];
  return (
    <Dropdown
      trigger={["click"]}
      menu={{
        items,
        onClick: ({ key }) => {
          if (key === "variations") void vary(g);
          else if (image) void navigate(hrefIn(pathname, openWith(key as GenerationTool, image.id)));
        },
      }}
    >
      <Button
        size="small"
        type="text"
        icon={<EllipsisOutlined />}
        loading={busy === g.id}
        aria-label={t("chain.more")}
        className="gen-card-actions"
      />
    </Dropdown>
  );
}

/**
 * Where a result came from and what it was given: the generation it was made from (its picture, linked to its page),
 * and the input image, mask and last frame it used; then what was made from it.
 */
export function Chain({ generation: g }: { generation: GenerationView }) {
  const { t } = useTranslation("studio");
  const { pathname } = useLocation();
  const given = [
    g.input && { key: "input", label: t(g.kind === "video" ? "form.startImage" : "form.inputImage"), media: g.input },
    g.mask && { key: "mask", label: t("chain.mask"), media: g.mask },
    g.end && { key: "end", label: t("chain.endFrame"), media: g.end },
  ].filter((x) => !!x);
  const children = g.children;
  if (!g.parent && !g.remixOfId && given.length === 0 && !children?.count) return null;
  return (
    <section className="result-chain" aria-label={t("chain.title")}>
      {g.remixOfId && (
        <p className="result-chain-remix" data-testid="remix-of">
          <BranchesOutlined aria-hidden /> {t("chain.remixOf")}{" "}
          <Link to={hrefIn(pathname, `/share/${g.remixOfId}`)}>{t("chain.remixSource")}</Link>
        </p>
      )}
      {g.parent && (
        <div className="result-chain-parent" data-testid="made-from">
          <h2 className="result-chain-title">
            <BranchesOutlined aria-hidden /> {t("chain.madeFrom")}
          </h2>
          <Link to={hrefIn(pathname, resultPath(g.parent))} className="result-chain-link" title={g.parent.prompt}>
            {g.parent.thumbUrl ? (
              <img src={g.parent.thumbUrl} alt={t("result.open", { prompt: g.parent.prompt })} />
            ) : (
              <span className="result-chain-nothumb" aria-hidden />
            )}
            <span className="result-chain-text">
              <strong>{t(`tools.${g.parent.tool}.title`)}</strong>
              <span className="result-chain-prompt">{g.parent.prompt}</span>
            </span>
          </Link>
        </div>
      )}
      {given.length > 0 && (
        <ul className="result-chain-given">
          {given.map((x) => (
            <li key={x.key}>
              <img src={x.media.thumbUrl ?? x.media.url} alt={x.label} className="result-input-thumb" />
              <span>{x.label}</span>
            </li>
          ))}
        </ul>
      )}
      {children && children.count > 0 && (
        <div className="result-chain-children" data-testid="made-from-this">
          <h2 className="result-chain-title">{t("chain.madeFromThis", { n: children.count })}</h2>
          <ul>
            {children.items.map((c) => (
              <li key={c.id}>
                <Link to={hrefIn(pathname, resultPath(c))} title={c.prompt}>
                  {c.thumbUrl ? (
                    <img src={c.thumbUrl} alt={t("result.open", { prompt: c.prompt })} />
                  ) : (
                    <span className="result-chain-nothumb">{t(`tools.${c.tool}.title`)}</span>
                  )}
                </Link>
              </li>
            ))}
          </ul>
        </div>
      )}
    </section>
  );
}
