# Baton's image for docker-compose.yml: the CLI (worker, webhook, ui, serve-agents) on Node 20.
# Build stage: dependencies, the TypeScript build and the prebuilt workflow bundle.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --loglevel=error
COPY tsconfig.json ./
COPY src ./src
COPY workflows ./workflows
COPY activities ./activities
COPY test ./test
COPY bench ./bench
COPY infra ./infra
RUN npx tsc -p . && node lib/src/runtime/bundle-workflows.js

# Run stage: production dependencies, the compiled code and the web app's files.
FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund --loglevel=error && npm cache clean --force
COPY --from=build /app/lib ./lib
COPY ui ./ui
USER node
ENTRYPOINT ["node", "lib/src/cli/main.js"]
CMD ["--help"]
