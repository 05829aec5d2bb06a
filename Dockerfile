# syntax=docker/dockerfile:1
#
# Endpoint Directory API: Bun runs the TypeScript in src/ directly (`bun src/index.ts`).
#
#   docker build -t endpoint-directory .                      # one machine (the default target)
#   docker build -t endpoint-directory --target litefs .      # many machines sharing one dataset (LiteFS)
#
# See docs/deploy.md. test/deploy/deploy-files.test.ts checks this file.

# Keep equal to "bun" in package.json's dependencies (the test checks it).
ARG BUN_VERSION=1.4.5

# ---------------------------------------------------------------------------------------------
FROM oven/bun:${BUN_VERSION}-slim AS base
WORKDIR /app

# ---------------------------------------------------------------------------------------------
# Production dependencies only, exactly as package-lock.json pins them. No lifecycle scripts:
# none is needed at run time, and swagger-ui-dist's would phone home. The "bun" package only pins
# the Bun version for `npm ci`; the image has its own /usr/local/bin/bun, and the package's
# unbuilt shim in node_modules/.bin would shadow it in `bun run`, so it is removed.
FROM base AS deps
COPY package.json package-lock.json ./
RUN bun install --production --frozen-lockfile --ignore-scripts --omit=optional \
 && rm -rf node_modules/bun node_modules/@oven node_modules/.bin/bun node_modules/.bin/bunx

# ---------------------------------------------------------------------------------------------
# The application: code and data files owned by root (read-only to the app), the database on /data.
# On first boot (no /data/directory.sqlite) the server builds the national directory from the
# bundled real lists in db/national/, offline, before it listens, then asks every server in the
# background; db/sample/ is the demo (`bun run data:sample` builds it in a checkout).
FROM base AS app
# MIMALLOC_PURGE_DELAY: the allocator keeps freed memory 1 s before returning it (src/runtime-env.ts).
ENV PORT=3000 \
    HOST=0.0.0.0 \
    DATABASE_PATH=/data/directory.sqlite \
    MIMALLOC_PURGE_DELAY=1000
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY src ./src
COPY db/migrations ./db/migrations
COPY db/national ./db/national
COPY db/sample ./db/sample
COPY db/vendors.json ./db/vendors.json
# The refresh needs no cron: the server runs it itself, as a low-priority child process, on the
# schedule REFRESH_* set (docs/deploy.md, "The refresh schedule"); on a LiteFS replica
# (/litefs/.primary exists) it never does: only the primary writes. Its probe follows the outage
# rule set in fly.toml's [env] (PROBE_CANARY_URLS, PROBE_OUTAGE_*).
RUN mkdir -p /data \
 && chown bun:bun /data
EXPOSE 3000
USER bun
CMD ["bun", "src/index.ts"]

# ---------------------------------------------------------------------------------------------
# Many machines: LiteFS replicates the SQLite file from the primary to every replica. LiteFS must
# mount its FUSE file system as root; it then starts the app as the unprivileged user "bun"
# (litefs.yml, `exec`).
FROM app AS litefs
USER root
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates fuse3 \
 && rm -rf /var/lib/apt/lists/*
COPY --from=flyio/litefs:0.5 /usr/local/bin/litefs /usr/local/bin/litefs
COPY litefs.yml /etc/litefs.yml
CMD ["litefs", "mount"]

# ---------------------------------------------------------------------------------------------
# Default target (one machine): the app as the unprivileged user "bun" (uid 1000 in oven/bun).
FROM app AS runtime
USER bun
CMD ["bun", "src/index.ts"]
