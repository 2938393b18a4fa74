import { type RouteConfig, index } from "@react-router/dev/routes";

export default [index("routes/public/home.tsx")] satisfies RouteConfig;
