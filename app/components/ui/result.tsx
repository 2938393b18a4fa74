import type { ReactNode } from "react";
import { clsx } from "clsx";
import CheckCircleFilled from "@ant-design/icons-svg/es/asn/CheckCircleFilled";
import CloseCircleFilled from "@ant-design/icons-svg/es/asn/CloseCircleFilled";
import ExclamationCircleFilled from "@ant-design/icons-svg/es/asn/ExclamationCircleFilled";
import WarningFilled from "@ant-design/icons-svg/es/asn/WarningFilled";
// Ant Design's illustrations are plain React components with no dependency on the rest of the library.
import NoFound from "antd/es/result/noFound";
import ServerError from "antd/es/result/serverError";
import Unauthorized from "antd/es/result/unauthorized";
import { Icon } from "#app/components/ui/icon.tsx";
import { ANTD_CSS_VAR_KEY } from "#app/components/theme.ts";

const ICONS = {
  success: CheckCircleFilled,
  error: CloseCircleFilled,
  info: ExclamationCircleFilled,
  warning: WarningFilled,
};
const IMAGES = { "404": NoFound, "403": Unauthorized, "500": ServerError };

export type ResultStatus = keyof typeof ICONS | keyof typeof IMAGES;

/** Ant Design's result (an icon or illustration, a title, a subtitle, actions), as markup its stylesheet draws. */
export function Result({
  status,
  title,
  subTitle,
  extra,
  className,
  children,
}: {
  status: ResultStatus;
  title: ReactNode;
  subTitle?: ReactNode;
  extra?: ReactNode;
  className?: string;
  children?: ReactNode;
}) {
  const Image = status in IMAGES ? IMAGES[status as keyof typeof IMAGES] : null;
  return (
    <div className={clsx("ant-result", `ant-result-${status}`, className, ANTD_CSS_VAR_KEY)}>
      {Image ? (
        <div className="ant-result-icon ant-result-image">
          <Image />
        </div>
      ) : (
        <div className="ant-result-icon">
          <Icon icon={ICONS[status as keyof typeof ICONS]} />
        </div>
      )}
      <div className="ant-result-title">{title}</div>
      {subTitle !== undefined && <div className="ant-result-subtitle">{subTitle}</div>}
      {extra !== undefined && <div className="ant-result-extra">{extra}</div>}
      {children !== undefined && <div className="ant-result-body">{children}</div>}
    </div>
  );
}
