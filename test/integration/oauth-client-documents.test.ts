import assert from 'node:assert/strict';
import type http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { clientDocuments, isDocumentClientId, type DocumentPolicy } from '../../api/oauth/client-documents';
import { testCertificates } from '../helpers/test-tls';
import { until } from '../helpers/until';

type Route = (req: http.IncomingMessage, res: http.ServerResponse) => void;

const json = (res: http.ServerResponse, body: unknown, headers: Record<string, string> = {}) => {
  const text = JSON.stringify(body);
  res.writeHead(200, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
};

/** Client ID Metadata Documents served over real TLS on loopback, with a certificate from a test CA. */
describe('client ID metadata documents', () => {
  const { ca, key, cert } = testCertificates();
  const routes = new Map<string, Route>();
  const hits = new Map<string, number>();
  let server: https.Server;
  let port = 0;

  before(async () => {
    server = https.createServer({ key, cert }, (req, res) => {
      const path = req.url ?? '';
      hits.set(path, (hits.get(path) ?? 0) + 1);
      const route = routes.get(path);
      if (route) route(req, res);
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const policy: DocumentPolicy = { allowPrivate: true, ca };
  const url = (path: string) => `https://localhost:${port}${path}`;
  const requests = (path: string) => hits.get(path) ?? 0;
  const doc = (path: string, extra: Record<string, unknown> = {}) => ({
    client_id: url(path),
    client_name: 'Example Assistant',
    redirect_uris: ['https://assistant.example/callback'],
    ...extra,
  });
  /** Serves a valid document at `path`, with `extra` fields and response `headers`. */
  const serve = (path: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
    routes.set(path, (_req, res) => json(res, doc(path, extra), headers));
  const refusal = async (path: string, documents = clientDocuments(policy)) => {
    const verdict = await documents.fetch(url(path));
    assert.equal(verdict.ok, false);
    return verdict.ok ? '' : verdict.reason;
  };

  it('tells a document client_id by its shape alone', () => {
    for (const good of [
      'https://app.example/oauth/client.json',
      'https://app.example:8443/client?v=2',
      'https://app.example/a/.well-known/client',
    ])
      assert.equal(isDocumentClientId(good), true, good);
    for (const bad of [
      'not a url',
      'http://app.example/client.json',
      'https://app.example/',
      'https://app.example',
      'https://app.example/client.json#frag',
      'https://app.example/client.json#',
      'https://user:pw@app.example/client.json',
      'https://app.example/a/../client.json',
      'https://app.example/./client.json',
      'https://app.example/a/%2e%2E/client.json',
      'https://app.example/a/..',
      'https:app.example/client.json',
      'https://app.example\\client.json',
      `https://app.example/${'a'.repeat(2_000)}`,
      'some-client',
    ])
      assert.equal(isDocumentClientId(bad), false, bad);
  });

  it('takes a valid document, filling in the defaults of a public client', async () => {
    serve('/web', { client_name: '  Example Assistant  ', logo_uri: 'https://assistant.example/logo.png' });
    const verdict = await clientDocuments(policy).fetch(url('/web'));
    assert.deepEqual(verdict, {
      ok: true,
      host: 'localhost',
      client: {
        client_id: url('/web'),
        client_name: 'Example Assistant',
        redirect_uris: ['https://assistant.example/callback'],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
        application_type: 'web',
        logo_uri: 'https://assistant.example/logo.png',
      },
    });
  });

  it('calls a client native when every redirect URI is http on loopback, and ignores unknown fields', async () => {
    serve('/native', {
      redirect_uris: ['http://127.0.0.1/callback', 'http://localhost:8123/cb', 'http://[::1]:9000/cb'],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      software_id: 'ignored',
    });
    const verdict = await clientDocuments(policy).fetch(url('/native'));
    assert.ok(verdict.ok);
    assert.equal(verdict.client.application_type, 'native');
    assert.deepEqual(verdict.client.grant_types, ['authorization_code']);
    assert.equal('software_id' in verdict.client, false);

    serve('/mixed', { redirect_uris: ['http://127.0.0.1/callback', 'https://assistant.example/cb'] });
    const mixed = await clientDocuments(policy).fetch(url('/mixed'));
    assert.ok(mixed.ok);
    assert.equal(mixed.client.application_type, 'web');
  });

  it('refuses a document whose client_id is not the URL it came from', async () => {
    routes.set('/mismatch', (_req, res) => json(res, doc('/mismatch', { client_id: url('/other') })));
    assert.match(await refusal('/mismatch'), /client_id/);
  });

  it('takes a document of exactly 5,120 bytes', async () => {
    const base = JSON.stringify(doc('/exact', { pad: '' }));
    serve('/exact', { pad: 'x'.repeat(5_120 - Buffer.byteLength(base)) });
    assert.equal((await clientDocuments(policy).fetch(url('/exact'))).ok, true);
  });

  it('refuses a document over 5 KB by its Content-Length, before reading it', async () => {
    serve('/big', { pad: 'x'.repeat(6_000) });
    assert.match(await refusal('/big'), /over 5120 bytes/);
  });

  it('refuses a chunked document as soon as it passes 5 KB, cutting the connection', async () => {
    let closed = false;
    routes.set('/big-chunked', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(`{"pad":"${'x'.repeat(6_000)}`);
      // Never ended: only a fetcher that stops at the limit answers before its deadline.
      res.once('close', () => (closed = true));
    });
    const started = Date.now();
    const reason = await refusal('/big-chunked', clientDocuments({ ...policy, timeoutMs: 3_000 }));
    assert.match(reason, /over 5120 bytes/);
    assert.ok(Date.now() - started < 2_000);
    await until('the server sees the connection closed', () => closed);
  });

  it('follows no redirect', async () => {
    serve('/target');
    routes.set('/redirect', (_req, res) => res.writeHead(302, { location: url('/target') }).end());
    assert.match(await refusal('/redirect'), /redirect/);
    assert.equal(requests('/target'), 0);
  });

  it('refuses an answer other than 200', async () => {
    routes.set('/created', (_req, res) => {
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end(JSON.stringify(doc('/created')));
    });
    assert.match(await refusal('/created'), /201/);
    assert.match(await refusal('/missing'), /404/);
  });

  it('refuses a document not served as JSON', async () => {
    routes.set('/html', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(JSON.stringify(doc('/html')));
    });
    assert.match(await refusal('/html'), /application\/json/);
    serve('/plus-json', {}, { 'content-type': 'application/client-metadata+json' });
    assert.equal((await clientDocuments(policy).fetch(url('/plus-json'))).ok, true);
  });

  it('gives up on a server slower than the deadline', async () => {
    routes.set('/slow', () => undefined);
    const started = Date.now();
    const reason = await refusal('/slow', clientDocuments({ ...policy, timeoutMs: 300 }));
    assert.match(reason, /too long/);
    const took = Date.now() - started;
    assert.ok(took >= 250 && took < 2_000, `took ${took} ms`);
  });

  it('refuses a client that holds a secret or would authenticate with one', async () => {
    serve('/secret', { client_secret: 'hunter2' });
    assert.match(await refusal('/secret'), /client_secret/);
    serve('/secret-expiry', { client_secret_expires_at: 0 });
    assert.match(await refusal('/secret-expiry'), /client_secret_expires_at/);
    serve('/basic', { token_endpoint_auth_method: 'client_secret_basic' });
    assert.match(await refusal('/basic'), /token_endpoint_auth_method/);
    serve('/jwt', { token_endpoint_auth_method: 'private_key_jwt' });
    assert.match(await refusal('/jwt'), /private_key_jwt is not supported/);
  });

  it('refuses bad fields, naming the field', async () => {
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['/http-redirect', { redirect_uris: ['http://assistant.example/cb'] }, /redirect_uris/],
      ['/fragment-redirect', { redirect_uris: ['https://assistant.example/cb#x'] }, /redirect_uris/],
      ['/no-redirects', { redirect_uris: [] }, /redirect_uris/],
      ['/no-name', { client_name: '   ' }, /client_name/],
      ['/long-name', { client_name: 'n'.repeat(201) }, /client_name/],
      ['/implicit', { grant_types: ['implicit'] }, /grant_types/],
      ['/refresh-only', { grant_types: ['refresh_token'] }, /grant_types/],
      ['/token-response', { response_types: ['token'] }, /response_types/],
      ['/http-logo', { logo_uri: 'http://assistant.example/logo.png' }, /logo_uri/],
      ['/bad-client-uri', { client_uri: 'not a url' }, /client_uri/],
    ];
    for (const [path, extra, reason] of cases) {
      serve(path, extra);
      assert.match(await refusal(path), reason, path);
    }
    routes.set('/array', (_req, res) => json(res, [doc('/array')]));
    assert.match(await refusal('/array'), /not a JSON object/);
  });

  it('fetches nothing for a client_id of the wrong shape', async () => {
    const documents = clientDocuments(policy);
    serve('/doc');
    for (const clientId of [
      url('/a/../doc'),
      url('/doc#x'),
      `http://localhost:${port}/doc`,
      url('/'),
      url(''),
    ]) {
      const verdict = await documents.fetch(clientId);
      assert.equal(verdict.ok, false, clientId);
    }
    assert.equal(requests('/doc'), 0);
    assert.equal(requests('/'), 0);
  });

  it('refuses a private address unless private targets are allowed', async () => {
    serve('/private');
    const strict = clientDocuments({ allowPrivate: false, ca });
    const direct = await strict.fetch(`https://127.0.0.1:${port}/private`);
    assert.ok(!direct.ok);
    assert.match(direct.reason, /non-public address/);
    assert.match(await refusal('/private', strict), /non-public address/);
    assert.equal(requests('/private'), 0);
  });

  it('keeps a document for its max-age, capped at a day', async () => {
    let now = 1_000_000;
    const documents = clientDocuments(policy, () => now);
    serve('/cached', {}, { 'cache-control': 'public, max-age=60' });
    assert.equal((await documents.fetch(url('/cached'))).ok, true);
    now += 59_000;
    assert.equal((await documents.fetch(url('/cached'))).ok, true);
    assert.equal(requests('/cached'), 1);
    now += 2_000;
    assert.equal((await documents.fetch(url('/cached'))).ok, true);
    assert.equal(requests('/cached'), 2);

    serve('/capped', {}, { 'cache-control': 'max-age=999999' });
    await documents.fetch(url('/capped'));
    now += 86_399_000;
    await documents.fetch(url('/capped'));
    assert.equal(requests('/capped'), 1);
    now += 2_000;
    await documents.fetch(url('/capped'));
    assert.equal(requests('/capped'), 2);
  });

  it('keeps a document until its Expires, counted from its Date', async () => {
    let now = 1_000_000;
    const documents = clientDocuments(policy, () => now);
    const date = new Date('2030-01-01T00:00:00Z');
    serve(
      '/expires',
      {},
      { date: date.toUTCString(), expires: new Date(date.getTime() + 120_000).toUTCString() },
    );
    await documents.fetch(url('/expires'));
    now += 119_000;
    await documents.fetch(url('/expires'));
    assert.equal(requests('/expires'), 1);
    now += 2_000;
    await documents.fetch(url('/expires'));
    assert.equal(requests('/expires'), 2);

    serve('/default', {});
    await documents.fetch(url('/default'));
    now += 299_000;
    await documents.fetch(url('/default'));
    assert.equal(requests('/default'), 1);
    now += 2_000;
    await documents.fetch(url('/default'));
    assert.equal(requests('/default'), 2);
  });

  it('fetches again every time a document says no-store, no-cache or max-age=0', async () => {
    const documents = clientDocuments(policy);
    for (const [path, header] of [
      ['/no-store', 'no-store'],
      ['/no-cache', 'no-cache'],
      ['/max-age-0', 'max-age=0'],
    ] as const) {
      serve(path, {}, { 'cache-control': header });
      assert.equal((await documents.fetch(url(path))).ok, true);
      assert.equal((await documents.fetch(url(path))).ok, true);
      assert.equal(requests(path), 2, path);
    }
  });

  it('keeps no failure: a 500 then a 200 gives the document', async () => {
    const documents = clientDocuments(policy);
    let failing = true;
    routes.set('/flaky', (_req, res) => {
      if (failing) res.writeHead(500).end();
      else json(res, doc('/flaky'));
    });
    assert.match(await refusal('/flaky', documents), /500/);
    failing = false;
    assert.equal((await documents.fetch(url('/flaky'))).ok, true);
    assert.equal(requests('/flaky'), 2);
  });

  it('shares one request among concurrent fetches of one client_id, each given its own copy', async () => {
    routes.set('/shared', (_req, res) => {
      setTimeout(() => json(res, doc('/shared'), { 'cache-control': 'no-store' }), 100);
    });
    const documents = clientDocuments(policy);
    const verdicts = await Promise.all(Array.from({ length: 5 }, () => documents.fetch(url('/shared'))));
    assert.equal(requests('/shared'), 1);
    assert.ok(verdicts.every((v) => v.ok && v.client.client_id === url('/shared')));
    const [first, second] = verdicts;
    assert.ok(first?.ok && second?.ok);
    assert.notEqual(first.client, second.client);
  });
});
