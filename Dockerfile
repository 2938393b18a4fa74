# syntax=docker/dockerfile:1
#
# Atelier production image.
#
#   docker build -t atelier .
#   docker run --init --stop-timeout 50 -p 3000:3000 -v atelier-data:/data atelier
#
# Without DATABASE_URL it uses the embedded database in the /data volume. With DATABASE_URL it uses
# PostgreSQL; see compose.yaml for a web process plus separate workers.

ARG NODE_IMAGE=node:24-bookworm-slim

# --- deps: every dependency, dev included (Vite and React Router's compiler are needed to build) ------------
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund

# --- prod-deps: what the server bundle imports at run time -------------------------------------------------
# --omit=dev also drops the `node` devDependency that brings Node 24 elsewhere: the base image already is
# Node 24, and the runtime starts with `node` directly instead of through npm.
FROM ${NODE_IMAGE} AS prod-deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

# --- build: client assets and the server bundle, plus the source stamp ------------------------------------
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY . .
# scripts/start.mjs rebuilds when build/.source-hash does not match the sources, and a rebuild cannot work
# without the dev dependencies. Write the stamp here, with the root spelled as start.mjs spells it (with a
# trailing slash: the hash covers paths relative to it), and ship the same sources in the runtime image.
RUN npm run build \
 && node --input-type=module \
      -e 'import { writeBuildStamp } from "./scripts/build-stamp.mjs"; writeBuildStamp(process.cwd() + "/");'
# The runtime gets production dependencies from prod-deps.
RUN rm -rf node_modules

# --- runtime ----------------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    DATA_DIR=/data
WORKDIR /app
COPY --from=prod-deps /app/node_modules ./node_modules
# The application stays owned by root (read-only for the server); only /data is writable.
COPY --from=build /app ./
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# `node scripts/start.mjs` directly rather than `npm start`: the dev dependencies (and the Node 24 they bring)
# are not installed here, and without npm in between, SIGTERM reaches the server for a graceful shutdown.
# The build is current, so start.mjs does not rebuild. Other roles: add `worker` or `migrate` as an argument.
CMD ["node", "scripts/start.mjs"]
