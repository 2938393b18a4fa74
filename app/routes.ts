import { type RouteConfig, index, route } from "@react-router/dev/routes";

// Every page exists unprefixed (English) and under each locale prefix: `:lang?` is the optional prefix,
// checked by the layout route, which answers 404 for anything that is not one of the ten locales.
export default [
  route(":lang?", "routes/public/layout.tsx", [
    index("routes/public/home.tsx"),
    route("*", "routes/public/not-found.tsx"),
  ]),
] satisfies RouteConfig;
