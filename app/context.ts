import { createContext } from "react-router";
import type { PublicSiteConfig } from "#config/site.ts";

/** What the HTTP layer hands every loader, action and the server entry for one request. */
export interface RequestInfo {
  requestId: string;
  /** Nonce for inline scripts, matching this response's Content-Security-Policy. */
  nonce: string;
  site: PublicSiteConfig;
  build: { version: string; id: string; timestamp: number };
  /** Ant Design's variables for the site's primary colour, when it is not the one the build's stylesheet has. */
  themeStylesheet: string | null;
  /** Whether the `/__test/` pages answer (TEST_ROUTES); they are 404 otherwise. */
  testRoutes: boolean;
}

export const requestInfoContext = createContext<RequestInfo>();
