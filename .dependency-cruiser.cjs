/**
 * The borders between the domain's areas, checked by `npm run lint:borders` (in `npm run lint`).
 *
 * - An area is `domain/<area>/`; its `index.ts` is its public face. Nothing outside the area imports
 *   anything but that index (the tests may reach an area's insides to test them; workflows import only
 *   their contracts and pure rule data, which ESLint checks).
 * - The areas are ranked, lowest first: an area imports the kernel and lower areas only. Checked on the
 *   areas, not on files, because an index re-exporting its files would hide an area-level cycle from a
 *   file-level check. A lower area that must let a higher one act raises a hook (domain/kernel/hooks.ts).
 * - The kernel imports no area; a migration imports no area (it is frozen as written).
 * - No import cycle anywhere in production code.
 */
const RANK = [
  'identity',
  'webhooks',
  'connections',
  'oauth',
  'leads',
  'conversations',
  'appointments',
  'sales',
  'campaigns',
  'prospects',
  'agents',
  'analytics',
  'approvals',
];

const PRODUCTION = '^(api|worker|activities|admin|infra|workflows|domain)/';
const area = (name) => `^domain/${name}/`;

/** One rule per area: it must not import an area ranked above it. */
const rankRules = RANK.slice(0, -1).map((name, i) => ({
  name: `rank-${name}`,
  comment: `${name} is ranked below ${RANK.slice(i + 1).join(', ')}: it must not import them (raise a hook instead)`,
  severity: 'error',
  from: { path: area(name) },
  to: { path: `^domain/(${RANK.slice(i + 1).join('|')})/` },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'production code has no import cycle (a type-only import is erased, so it cannot make one)',
      severity: 'error',
      from: { path: PRODUCTION },
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    ...rankRules,
    {
      name: 'area-index-only-from-areas',
      comment: 'another area imports an area only through its index.ts',
      severity: 'error',
      from: { path: '^domain/([^/]+)/' },
      to: {
        path: '^domain/[^/]+/.',
        pathNot: ['^domain/$1/', '^domain/kernel/', '^domain/[^/]+/index\\.ts$'],
      },
    },
    {
      name: 'area-index-only-from-doors',
      comment: 'the doors, the worker, the activities and infra import an area only through its index.ts',
      severity: 'error',
      from: { path: '^(api|worker|activities|admin|infra)/' },
      to: {
        path: '^domain/[^/]+/.',
        pathNot: ['^domain/kernel/', '^domain/[^/]+/index\\.ts$'],
      },
    },
    {
      name: 'kernel-imports-no-area',
      comment: 'the kernel is below every area',
      severity: 'error',
      from: { path: '^domain/kernel/' },
      to: { path: '^domain/', pathNot: '^domain/kernel/' },
    },
    {
      name: 'areas-not-above-the-registry',
      comment: 'an area never imports the registry or the entity list: they import the areas',
      severity: 'error',
      from: { path: '^domain/[^/]+/' },
      to: { path: '^domain/(registry|entities|data-source)\\.ts$' },
    },
    {
      name: 'migrations-import-no-area',
      comment: 'a migration is frozen as it was written: it imports no area code',
      severity: 'error',
      from: { path: '^domain/migrations/' },
      to: { path: '^domain/(?!migrations/)' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist|\\.data|\\.tools)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
    },
  },
};
