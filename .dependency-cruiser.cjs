/**
 * The layer rules of the hexagonal core, checked on every lint run (`npm run lint`).
 * Paths are resolved, so a relative import that climbs out of a layer is caught like a bare one.
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: 'domain-is-pure',
      comment: 'The domain imports only other domain code: no package, no Node built-in, no outer layer.',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: { pathNot: '^src/domain/' },
    },
    {
      name: 'application-depends-on-domain',
      comment: 'Use cases depend on the domain and each other only (ports, never adapters or packages).',
      severity: 'error',
      from: { path: '^src/application/' },
      to: { pathNot: '^src/(domain|application)/' },
    },
    {
      name: 'http-never-touches-the-database',
      comment: 'HTTP adapters reach persistence through ports, never through Knex, pg or the Knex adapters.',
      severity: 'error',
      from: { path: '^src/adapters/http/' },
      to: { path: ['^node_modules/(knex|pg|pg-[^/]+|@electric-sql)/', '^src/adapters/knex/'] },
    },
    {
      name: 'only-entry-points-import-bootstrap',
      comment: 'The composition root is imported by entry points (bootstrap itself, tests, scripts, bench), never by the core or adapters.',
      severity: 'error',
      from: { path: '^src/(domain|application|adapters)/' },
      to: { path: '^src/bootstrap/' },
    },
    {
      name: 'inversify-stays-in-the-composition-root',
      comment: 'Domain, use cases and adapters are plain classes; only bootstrap knows the container.',
      severity: 'error',
      from: { path: '^src/(domain|application|adapters)/' },
      to: { path: '^node_modules/(inversify|reflect-metadata)/' },
    },
    {
      name: 'the-service-never-runs-test-code',
      comment: "The contract suites (src/testing, the package's ./testing entry) are for tests; chai and mocha only for them.",
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/testing/' },
      to: { path: ['^src/testing/', '^node_modules/(chai|mocha)/'] },
    },
    {
      name: 'no-circular',
      comment: 'Runtime import cycles make initialisation order fragile (a type-only cycle is erased at compile time).',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.json'],
    },
    exclude: { path: '^dist/' },
  },
};
