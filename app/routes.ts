import { type RouteConfig, index, layout, route } from "@react-router/dev/routes";

// Every page exists unprefixed (English) and under each locale prefix: `:lang?` is the optional prefix,
// checked by the layout routes, which answer 404 for anything that is not one of the ten locales.
export default [
  // Raises each kind of error for the end-to-end suite; answers 404 unless TEST_ROUTES is on.
  route("__test/error/:status", "routes/test/error.tsx"),
  route(":lang?/dashboard", "routes/dashboard/layout.tsx", [
    index("routes/dashboard/index.tsx"),
    route("home", "routes/dashboard/home.tsx"),
    route("image", "routes/dashboard/image/gallery.tsx"),
    route("image/create/:tool", "routes/dashboard/image/create.tsx"),
    route("image/:toolId", "routes/dashboard/image/workspace.tsx"),
    route("image/:toolId/:id", "routes/dashboard/image/result.tsx"),
    route("video", "routes/dashboard/video/index.tsx"),
    route("video/create", "routes/dashboard/video/studio.tsx", { id: "video-create" }),
    route("video/5afe14a8", "routes/dashboard/video/studio.tsx", { id: "video-workspace" }),
    route("video/5afe14a8/:id", "routes/dashboard/video/result.tsx"),
    route("api", "routes/dashboard/api.tsx"),
    route("*", "routes/dashboard/not-found.tsx"),
  ]),
  route(":lang?", "routes/public/layout.tsx", [
    index("routes/public/home.tsx"),
    route("auth/login", "routes/auth/login.tsx"),
    route("auth/register", "routes/auth/register.tsx"),
    route("auth/callback", "routes/auth/callback.tsx"),
    route("auth/update-password", "routes/auth/update-password.tsx"),
    route("auth/logout", "routes/auth/logout.tsx"),
    route("auth/oauth/:provider", "routes/auth/oauth.tsx"),
    route("pricing", "routes/public/pricing.tsx"),
    route("docs", "routes/public/docs/index.tsx"),
    route("docs/api-reference", "routes/public/docs/reference.tsx"),
    route("docs/:slug", "routes/public/docs/page.tsx"),
    route("blog", "routes/public/blog/index.tsx"),
    route("blog/:slug", "routes/public/blog/post.tsx"),
    route("legal/:slug", "routes/public/legal.tsx"),
    route("test", "routes/public/status.tsx"),
    route("share/:id", "routes/public/share.tsx"),
    // The account pages are built with Ant Design: their layout adds its provider.
    layout("routes/user/layout.tsx", [
      route("user/profile", "routes/user/profile.tsx"),
      route("user/orders", "routes/user/orders.tsx"),
      route("user/orders/:id", "routes/user/order.tsx"),
      route("user/admin", "routes/user/admin/layout.tsx", [
        index("routes/user/admin/overview.tsx"),
        route("users", "routes/user/admin/users.tsx"),
        route("users/:id", "routes/user/admin/user.tsx"),
        route("orders", "routes/user/admin/orders.tsx"),
        route("orders/:id", "routes/user/admin/order.tsx"),
        route("models", "routes/user/admin/models.tsx"),
        route("codes", "routes/user/admin/codes.tsx"),
        route("settings", "routes/user/admin/settings.tsx"),
        route("audit", "routes/user/admin/audit.tsx"),
      ]),
    ]),
    route("*", "routes/public/not-found.tsx"),
  ]),
] satisfies RouteConfig;
