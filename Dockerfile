# syntax=docker/dockerfile:1
#
# avax-exporter container image.
#
#   docker build -t avax-exporter \
#     --build-arg VERSION=$(node -p "require('./package.json').version") \
#     --build-arg REVISION=$(git rev-parse HEAD) \
#     --build-arg CREATED=$(date -u +%Y-%m-%dT%H:%M:%SZ) .
#   docker run --rm -p 9785:9785 avax-exporter --node.url=http://avalanchego:9650
#   docker run --rm avax-exporter --version     # the version and the revision it was built from
#
# Every flag can also be given as an environment variable:
# AVAX_EXPORTER_<FLAG_WITH_UNDERSCORES>, e.g. AVAX_EXPORTER_NODE_URL.

ARG NODE_IMAGE=node:24-slim

# ---------------------------------------------------------------------------
# build: install all dependencies and compile TypeScript to dist/
# ---------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

# ---------------------------------------------------------------------------
# runtime: production dependencies and the compiled output only
# ---------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime

ARG VERSION=0.0.0-dev
ARG REVISION=unknown
ARG CREATED=unknown

LABEL org.opencontainers.image.title="avax-exporter" \
      org.opencontainers.image.description="Prometheus exporter for Avalanche nodes and validators" \
      org.opencontainers.image.url="https://github.com/avax-exporter/avax-exporter" \
      org.opencontainers.image.source="https://github.com/avax-exporter/avax-exporter" \
      org.opencontainers.image.documentation="https://github.com/avax-exporter/avax-exporter/blob/main/docs/runbook.md" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.vendor="avax-exporter" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.created="${CREATED}"

# Memory settings, measured in docs/performance.md and explained in
# test/tools/bench/runtime-env.ts (the benchmark runs the daemon with the same):
# MALLOC_ARENA_MAX: at most two glibc malloc arenas, so the threads that gzip and
# parse do not each keep one. MALLOC_MMAP_THRESHOLD_: buffers from 32 KiB on (socket
# reads, compiler zones, zlib states) are returned to the system when freed instead
# of fragmenting the arena.
# NODE_OPTIONS: a 2 x 8 MB young generation (V8's default is 2 x 16 MB) for the
# same GC time per poll round. Set NODE_OPTIONS yourself to replace it.
ENV NODE_ENV=production \
    MALLOC_ARENA_MAX=2 \
    MALLOC_MMAP_THRESHOLD_=32768 \
    NODE_OPTIONS=--max-semi-space-size=8 \
    AVAX_EXPORTER_WEB_LISTEN_ADDRESS=:9785 \
    AVAX_EXPORTER_REVISION=${REVISION}

WORKDIR /app
# Installed as root and left read-only for the unprivileged user below.
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && npm cache clean --force \
 && rm -rf /root/.npm /tmp/*
COPY --from=build /src/dist ./dist

# Unprivileged user shipped with the official node images (uid/gid 1000).
USER node:node

EXPOSE 9785

# The slim image has no curl or wget: probe with node itself. Adjust the port
# if you change --web.listen-address.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:9785/-/healthy',{signal:AbortSignal.timeout(4000)}).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]

ENTRYPOINT ["node", "/app/dist/cli.js"]
