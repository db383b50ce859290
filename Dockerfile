# syntax=docker/dockerfile:1
# The registry server: `docker build -t toolyard-registry .`
# Runs as uid 1000 with a read-only root filesystem; it writes only under /var/lib/toolyard (the
# embedded database, a volume) and /tmp (git checkouts), e.g.
#   docker run --read-only --tmpfs /tmp -v toolyard-data:/var/lib/toolyard -p 8080:8080 toolyard-registry
ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
# scripts off: `prepare` would build before the sources are here
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

FROM ${NODE_IMAGE} AS runtime
# git: the git source kind runs the git command; ca-certificates: https sources and TLS to PostgreSQL
RUN apt-get update \
  && apt-get install -y --no-install-recommends git ca-certificates tini \
  && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production \
    HOME=/tmp \
    TOOLYARD_REGISTRY_SERVER_ADDRESS=0.0.0.0:8080
WORKDIR /app
COPY package.json package-lock.json ./
# production dependencies only; scripts off because `prepare` needs the dev toolchain (dist is copied below)
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force && rm -rf /tmp/* /root/.npm
COPY --from=build /src/dist ./dist
COPY bin ./bin
COPY catalog ./catalog
COPY deploy/docker/registry.yaml /etc/toolyard/registry.yaml
RUN mkdir -p /var/lib/toolyard && chown 1000:1000 /var/lib/toolyard
VOLUME ["/var/lib/toolyard"]
# numeric, so Kubernetes' runAsNonRoot can verify it (the image's `node` user)
USER 1000:1000
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8080/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--", "node", "/app/bin/toolyard.js"]
CMD ["registry", "serve", "--config", "/etc/toolyard/registry.yaml"]
