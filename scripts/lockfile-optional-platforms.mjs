// The npm registry mirror this project is built against answers 404 for some of @swc/core's
// platform packages (darwin, win32, exotic linux). `npm install` then leaves them out of the
// lockfile and `npm ci` refuses the lockfile as out of sync. This adds the missing entries, marked
// optional and fenced by os/cpu, so npm skips them on every other platform without fetching.
// Run after any `npm install` that rewrites package-lock.json: node scripts/lockfile-optional-platforms.mjs
import { readFileSync, writeFileSync } from 'node:fs';

const platforms = {
  'darwin-arm64': { os: 'darwin', cpu: 'arm64' },
  'darwin-x64': { os: 'darwin', cpu: 'x64' },
  'linux-arm-gnueabihf': { os: 'linux', cpu: 'arm' },
  'linux-arm64-gnu': { os: 'linux', cpu: 'arm64', libc: 'glibc' },
  'linux-arm64-musl': { os: 'linux', cpu: 'arm64', libc: 'musl' },
  'linux-ppc64-gnu': { os: 'linux', cpu: 'ppc64', libc: 'glibc' },
  'linux-s390x-gnu': { os: 'linux', cpu: 's390x', libc: 'glibc' },
  'linux-x64-gnu': { os: 'linux', cpu: 'x64', libc: 'glibc' },
  'linux-x64-musl': { os: 'linux', cpu: 'x64', libc: 'musl' },
  'win32-arm64-msvc': { os: 'win32', cpu: 'arm64' },
  'win32-ia32-msvc': { os: 'win32', cpu: 'ia32' },
  'win32-x64-msvc': { os: 'win32', cpu: 'x64' },
};

const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
const core = lock.packages['node_modules/@swc/core'];
let added = 0;
for (const [name, version] of Object.entries(core?.optionalDependencies ?? {})) {
  const key = `node_modules/${name}`;
  const platform = platforms[name.replace('@swc/core-', '')];
  if (lock.packages[key] || !platform) continue;
  lock.packages[key] = {
    version,
    cpu: [platform.cpu],
    license: 'Apache-2.0 AND MIT',
    optional: true,
    os: [platform.os],
    ...(platform.libc ? { libc: [platform.libc] } : {}),
    engines: { node: '>=10' },
  };
  added++;
}
lock.packages = Object.fromEntries(
  Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
);
writeFileSync(file, JSON.stringify(lock, null, 2) + '\n');
console.log(`added ${added} optional platform entries`);
