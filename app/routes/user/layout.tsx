import { Outlet } from "react-router";
import { AntdProvider } from "#app/components/antd-provider.tsx";
import { SessionWatch } from "#app/components/session-watch.tsx";

/** Account pages: Ant Design's provider for their components, and the watch for a session that ends. */
export default function AccountPages() {
  return (
    <AntdProvider>
      <SessionWatch />
      <Outlet />
    </AntdProvider>
  );
}
