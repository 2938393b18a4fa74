import { Outlet } from "react-router";
import { AntdProvider } from "#app/components/antd-provider.tsx";

/** These pages are built with Ant Design's components: they get its provider (theme, scheme, language). */
export default function AntdPages() {
  return (
    <AntdProvider>
      <Outlet />
    </AntdProvider>
  );
}
