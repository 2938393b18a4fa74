import { route, type RouteConfig } from "@react-router/dev/routes";

export default [route(":page", "routes/page.tsx")] satisfies RouteConfig;
