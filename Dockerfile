# The discovery service. Build: docker build -t paid-api-discovery .
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY scripts ./scripts
COPY test ./test
COPY mappings ./mappings
COPY demo ./demo
COPY examples ./examples
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/package.json ./
COPY mappings ./mappings
COPY demo ./demo
USER node
EXPOSE 8080
CMD ["node", "dist/src/server.js"]
