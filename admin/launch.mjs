// `npm run admin`: the operator CLI as compiled JavaScript (dist/admin/cli.js), run in this process (a
// second Node would cost its start again), after rebuilding dist/ when a TypeScript source of the build
// changed since it was built. Under tsx every call started a loader and transformed TypeScript first: about
// twice the time (bench/README.md, "admin"). Plain JavaScript, so nothing is transformed before the check.
import { spawnSync } from 'node:child_process';
import { linkSync, mkdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import module, { createRequire } from 'node:module';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const cli = path.join(dist, 'admin', 'cli.js');
// The sources of the last build (tsc's own list, tooling/ and JSON included); its mtime is when that build
// started, so a file saved while tsc ran counts as newer.
const stampFile = path.join(dist, '.admin-build.json');
const lockFile = path.join(dist, '.admin-build.lock');
const require = createRequire(import.meta.url);

const note = (line) => process.stderr.write(`admin: ${line}\n`);

/** Why dist/ must be rebuilt before it runs, or undefined when it is as new as every source. */
function staleness() {
  if (!statSync(cli, { throwIfNoEntry: false })) return 'no build in dist/ yet';
  const stamp = statSync(stampFile, { throwIfNoEntry: false });
  if (!stamp) return 'dist/ holds no record of the sources it was built from';
  let sources;
  try {
    sources = JSON.parse(readFileSync(stampFile, 'utf8')).sources;
  } catch {
    return `${path.relative(root, stampFile)} is unreadable`;
  }
  // A deleted source counts as changed: what imported it changed too.
  const changed = sources.find(
    (f) => !(statSync(path.join(root, f), { throwIfNoEntry: false })?.mtimeMs <= stamp.mtimeMs),
  );
  return changed && `${changed} changed since the last build`;
}

/**
 * `npm run build` with tsc's list of the files it read. Type errors do not stop the CLI (tsx never
 * checked types either; `npm run typecheck` does): tsc still emits, exit status 2. Status 1 means
 * it emitted nothing (a broken tsconfig, say), and the CLI cannot run: false.
 */
function build(reason) {
  note(`${reason}; building dist/ (npm run build, about 20 s)`);
  const started = new Date();
  rmSync(stampFile, { force: true });
  const tsc = spawnSync(
    process.execPath,
    [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--listFiles', '--pretty', 'false'],
    { cwd: root, encoding: 'utf8', maxBuffer: 64 * 2 ** 20 },
  );
  const lines = `${tsc.stdout ?? ''}`.split('\n');
  if (tsc.status !== 0 && tsc.status !== 2) {
    process.stderr.write(`${lines.filter((l) => !path.isAbsolute(l)).join('\n')}${tsc.stderr ?? ''}`);
    note(`the build failed (tsc exit ${tsc.status ?? tsc.signal})`);
    return false;
  }
  const errors = lines.filter((l) => / error TS\d+:/.test(l)).length;
  if (errors > 0)
    note(`tsc found ${errors} type error(s) (npm run typecheck lists them); running the build anyway`);
  const sources = [
    'tsconfig.json',
    'tsconfig.build.json',
    ...lines
      .filter((l) => l.startsWith(root + path.sep) && !l.includes(`${path.sep}node_modules${path.sep}`))
      .map((l) => path.relative(root, l)),
  ];
  writeFileSync(stampFile, JSON.stringify({ sources }) + '\n');
  utimesSync(stampFile, started, started);
  return true;
}

/**
 * One build at a time (an approver's two shells, the test runner's parallel files): the others wait,
 * then find dist/ fresh. A lock whose process is gone (a killed build), or older than any build takes,
 * is taken over.
 */
async function buildIfStale() {
  let reason = staleness();
  if (!reason) return true;
  mkdirSync(dist, { recursive: true });
  let waited = false;
  while (!lock()) {
    if (!waited) note('waiting for the build another admin call started');
    waited = true;
    await sleep(200);
  }
  try {
    reason = staleness();
    return !reason || build(reason);
  } finally {
    rmSync(lockFile, { force: true });
  }
}

const LOCK_GIVEN_UP_MS = 10 * 60_000;

/** Takes the build lock: created whole with our pid in it (a link is atomic), or taken over. */
function lock() {
  const mine = `${lockFile}.${process.pid}`;
  writeFileSync(mine, String(process.pid));
  try {
    linkSync(mine, lockFile);
    return true;
  } catch (err) {
    if (err.code !== 'EEXIST') throw err;
  } finally {
    rmSync(mine, { force: true });
  }
  try {
    const holder = Number(readFileSync(lockFile, 'utf8'));
    if (alive(holder) && Date.now() - statSync(lockFile).mtimeMs < LOCK_GIVEN_UP_MS) return false;
    rmSync(lockFile, { force: true });
  } catch (err) {
    if (err.code !== 'ENOENT') throw err;
  }
  return lock();
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

if (!(await buildIfStale())) process.exit(1);
// Node 22+ keeps compiled code between calls (NODE_COMPILE_CACHE, or the OS temp folder); Node 20 has no
// such cache, and the CLI answers in time without one.
module.enableCompileCache?.();
// process.argv stays [node, this file, ...args]: the CLI reads argv from index 2, and sets the exit code.
require(cli);
