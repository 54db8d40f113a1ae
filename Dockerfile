# Build once, run as api, worker or migrate (compose picks the command).
ARG NODE_IMAGE=node:20-bookworm-slim
# node:20 bundles npm 10, which ignores package.json "allowScripts"; use the npm 11 the lockfile is made with.
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
RUN npm run build

FROM base AS runtime
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force
COPY --from=build /app/dist ./dist
# Files stay root-owned: the app can read its code but not rewrite it.
USER node
EXPOSE 3000
CMD ["node", "dist/api/main.js"]
