import type { ReactNode } from "react";
import {
  ExpandOutlined,
  FileImageOutlined,
  FontSizeOutlined,
  HighlightOutlined,
  PlaySquareOutlined,
  ScissorOutlined,
  VideoCameraOutlined,
  ZoomInOutlined,
} from "#app/components/antd-icons.ts";
import type { GenerationTool } from "#common/tools.ts";

/** Each tool's icon in menus and buttons (a new tool in the table needs one here). */
const ICONS: Record<GenerationTool, ReactNode> = {
  "text-to-image": <FontSizeOutlined />,
  "image-to-image": <FileImageOutlined />,
  inpaint: <HighlightOutlined />,
  outpaint: <ExpandOutlined />,
  upscale: <ZoomInOutlined />,
  "remove-background": <ScissorOutlined />,
  "text-to-video": <VideoCameraOutlined />,
  "image-to-video": <PlaySquareOutlined />,
};

export function ToolIcon({ tool }: { tool: GenerationTool }) {
  return <>{ICONS[tool]}</>;
}
