import { VIDEO_STYLES } from "#common/generation.ts";

export { createDemoImageModel, renderDemoImage, type DemoImageOptions } from "#server/providers/demo/image-model.ts";
export {
  createDemoVideoModel,
  renderDemoPoster,
  renderDemoVideo,
  type DemoVideo,
  type DemoVideoHooks,
  type DemoVideoOptions,
} from "#server/providers/demo/video-model.ts";

/** The looks the demo video model can give a clip: the product's video styles, all of them. */
export const DEMO_VIDEO_STYLES = VIDEO_STYLES;
