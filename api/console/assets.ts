import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { DECIDE_JS } from './decide-script';
import { CONSOLE_JS } from './script';
import { CONSOLE_CSS } from './style';

type Asset = { type: string; body: Buffer; version: string };

/**
 * @simplewebauthn/browser's UMD bundle (it sets `window.SimpleWebAuthnBrowser`), read from the
 * installed package once at start-up: the browser half of the same release as the server half.
 */
function webauthnBrowserBundle(): Buffer {
  // The package's exports name no file of its dist (its `unpkg` field does): from its entry point
  // (script/index.js) up to the folder that holds the bundle.
  const bundle = path.join('dist', 'bundle', 'index.umd.min.js');
  let dir = path.dirname(require.resolve('@simplewebauthn/browser'));
  while (!existsSync(path.join(dir, bundle))) {
    if (path.dirname(dir) === dir) throw new Error(`@simplewebauthn/browser has no ${bundle}`);
    dir = path.dirname(dir);
  }
  return readFileSync(path.join(dir, bundle));
}

const asset = (type: string, body: Buffer): Asset => ({
  type,
  body,
  version: createHash('sha256').update(body).digest('hex').slice(0, 12),
});

/**
 * The console's static files under /app/assets/, each with its version in its URL (`?v=` its hash) so
 * a page never pairs with a stale file, although every answer is `no-store` like the pages.
 */
export function consoleAssets() {
  const files = new Map<string, Asset>([
    ['console.css', asset('text/css; charset=utf-8', Buffer.from(CONSOLE_CSS))],
    ['console.js', asset('text/javascript; charset=utf-8', Buffer.from(CONSOLE_JS))],
    ['webauthn.js', asset('text/javascript; charset=utf-8', webauthnBrowserBundle())],
    ['decide.js', asset('text/javascript; charset=utf-8', Buffer.from(DECIDE_JS))],
  ]);
  const href = (name: string) => `/app/assets/${name}?v=${files.get(name)!.version}`;
  return {
    get: (name: string) => files.get(name),
    stylesheet: href('console.css'),
    scripts: { console: href('console.js'), webauthn: href('webauthn.js'), decide: href('decide.js') },
  };
}

export type ConsoleAssets = ReturnType<typeof consoleAssets>;
