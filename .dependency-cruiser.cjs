/**
 * The import rules of src/ (`npm test` runs `depcruise src tools bench`; docs/architecture.md explains them).
 *
 * LAYERS lists the folders lowest first. A file may import its own folder, and folders earlier in
 * the list; never a later one, nor another folder of its own rank. That makes the folder graph
 * acyclic by construction, type-only imports included (tsPreCompilationDeps): no folder imports a
 * folder that imports it back. Inside a folder, `no-circular` does the same for modules. A folder
 * that is not listed fails the `unlisted-folder` rule, so a new folder gets a rank when it is created.
 */
const LAYERS = [
  // The records, enums and TypeBox schemas: imports nothing else of src/.
  ["src/model"],
  // Configuration, the logger, the command-line helper.
  ["src/config.ts", "src/runtime-env.ts"],
  ["src/logger.ts", "src/cli"],
  // The data layer: the Drizzle schema, migrations, the SQL statements.
  ["src/db"],
  // The read model the server answers from: the directory index built from the database.
  ["src/directory"],
  // The server's refresh schedule: starts the refresh as a child process (a path, never an import).
  ["src/scheduler"],
  // The data pipeline: probe, ingest (the SSRF guard of probe), national (ingest), refresh (all).
  ["src/pipeline/probe"],
  ["src/pipeline/ingest"],
  ["src/pipeline/national"],
  ["src/pipeline/refresh"],
  // Operator commands that are neither the pipeline nor served: API key administration.
  ["src/keys"],
  // The server: HTTP plumbing, then cross-cutting plugins, the bypasses, the features, the entry every request passes, the app.
  ["src/server/http"],
  ["src/server/observability"],
  ["src/server/rate-limit", "src/server/bypass"],
  ["src/server/endpoints"],
  [
    "src/server/availability",
    "src/server/export",
    "src/server/vendors",
    "src/server/reports",
    "src/server/stats",
    "src/server/changes",
    "src/server/health",
    "src/server/freshness",
    "src/server/web",
  ],
  // The FHIR face of the directory: reuses the export's FHIR mapping.
  ["src/server/fhir"],
  // The OpenAPI document: built from every feature's schemas.
  ["src/server/docs"],
  ["src/server/entry.ts"],
  ["src/server/app.ts"],
  // The composition root: builds the national database on a first start, then serves.
  ["src/index.ts"],
];

const escape = (path) => path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const pattern = (path) => (path.endsWith(".ts") ? `^${escape(path)}$` : `^${escape(path)}/`);

const rankRules = LAYERS.flatMap((folders, rank) =>
  folders.map((folder) => ({
    name: "layer-order",
    comment: `${folder} imports only itself and the folders before it in LAYERS (.dependency-cruiser.cjs)`,
    severity: "error",
    from: { path: pattern(folder) },
    to: {
      path: "^src/",
      pathNot: [pattern(folder), ...LAYERS.slice(0, rank).flat().map(pattern)],
    },
  })),
);

module.exports = {
  forbidden: [
    ...rankRules,
    {
      name: "no-circular",
      comment:
        "no module imports a module that imports it back, type-only imports included: inside a folder too, where layer-order does not look",
      severity: "error",
      from: { path: "^(src|tools|bench)/" },
      to: { circular: true },
    },
    {
      name: "unlisted-folder",
      comment: "every file of src/ belongs to a folder of LAYERS (.dependency-cruiser.cjs)",
      severity: "error",
      from: { path: "^src/", pathNot: LAYERS.flat().map(pattern) },
      to: {},
    },
    {
      name: "server-not-pipeline",
      comment:
        "the server never runs the pipeline; only src/index.ts builds the national database on a first start",
      severity: "error",
      from: { path: "^src/server/" },
      to: { path: "^src/pipeline/" },
    },
    {
      name: "start-up-needs-only-national",
      comment: "of the pipeline, the composition root (src/index.ts) uses only the national build",
      severity: "error",
      from: { path: "^src/index\\.ts$" },
      to: { path: "^src/pipeline/", pathNot: "^src/pipeline/national/build\\.ts$" },
    },
    {
      name: "ingest-parts-below-ingest",
      comment:
        "ingest's parsers, enrichers and host rules are parts ingest uses: they import its shared records (pipeline/ingest/types/), never ingest itself",
      severity: "error",
      from: { path: "^src/pipeline/ingest/(parsers|enrich|hosts)/" },
      to: { path: "^src/pipeline/ingest/[^/]+$" },
    },
    {
      name: "sqlite-only-in-db",
      comment:
        "only src/db runs SQL: elsewhere in src/, bun:sqlite and drizzle-orm are imported for their types only (docs/architecture.md, Layers)",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/db/" },
      to: { path: "^(bun:sqlite|drizzle-orm)", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "no-dev-tools-in-src",
      comment: "src/ serves and runs the pipeline: it never imports a dev tool, a bench or a test",
      severity: "error",
      from: { path: "^src/" },
      to: { path: "^(tools|bench|test)/" },
    },
    {
      name: "nothing-served-is-a-dev-tool",
      comment: "nothing reachable from the server's entry point lives under tools/, bench/ or test/",
      severity: "error",
      from: { path: "^src/index\\.ts$" },
      to: { path: "^(tools|bench|test)/", reachable: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    moduleSystems: ["es6", "cjs"],
  },
};
