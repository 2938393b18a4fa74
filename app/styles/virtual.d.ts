/** The URL of Ant Design's stylesheet generated for this build (see `vite.config.ts`). */
declare module "virtual:antd-stylesheet" {
  const href: string;
  export default href;
}
