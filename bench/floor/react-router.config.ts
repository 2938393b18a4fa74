import type { Config } from "@react-router/dev/config";

// Built by `npm run bench` into bench/floor/build (inside the project, so that the build's imports resolve), and
// removed again after the run.
export default { ssr: true, appDirectory: "app", buildDirectory: "build" } satisfies Config;
