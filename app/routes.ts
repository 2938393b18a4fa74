import { type RouteConfig, index, route } from "@react-router/dev/routes";

// Every page exists unprefixed (English) and under each locale prefix: `:lang?` is the optional prefix,
// checked by the layout route, which answers 404 for anything that is not one of the ten locales.
export default [
  // Raises each kind of error for the end-to-end suite; answers 404 unless TEST_ROUTES is on.
  route("__test/error/:status", "routes/test/error.tsx"),
  route(":lang?", "routes/public/layout.tsx", [
    index("routes/public/home.tsx"),
    route("*", "routes/public/not-found.tsx"),
  ]),
] satisfies RouteConfig;
