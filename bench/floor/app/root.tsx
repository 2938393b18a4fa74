import type { ReactNode } from "react";
import { Links, Meta, Outlet, Scripts, ScrollRestoration, useParams } from "react-router";
import { elements, pages } from "./markup.ts";

export function Layout({ children }: { children: ReactNode }) {
  const page = pages[useParams().page ?? ""];
  return (
    <html lang="en">
      <head>
        {elements(page?.head ?? [])}
        <Meta />
        <Links />
      </head>
      <body>
        {children}
        <ScrollRestoration />
        <Scripts />
      </body>
    </html>
  );
}

export default function Root() {
  return <Outlet />;
}
