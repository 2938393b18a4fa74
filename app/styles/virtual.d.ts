/** The URL of Ant Design's stylesheet generated for this build (see `vite.config.ts`). */
declare module "virtual:antd-stylesheet" {
  const href: string;
  export default href;
}

/** Scalar's prebuilt browser module of its API reference (see `vite.config.ts`, scalarReference). */
declare module "virtual:scalar-api-reference" {
  export { createApiReference } from "@scalar/api-reference";
}
