import assert from 'node:assert/strict';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { SEARCH_ATTRIBUTES, workerSearchAttributes } from '../../domain/kernel/search-attributes';
import { ConfigError, loadConfig, warnOfForcedSettings } from '../../infra/config';
import { repoRoot } from '../../tooling/paths';

const base = { DATABASE_URL: 'postgres://u:p@localhost:5432/db', TEMPORAL_ADDRESS: 'localhost:7233' };

describe('configuration', () => {
  it('names every bad or missing variable at once', () => {
    assert.throws(
      () => loadConfig({ PORT: 'abc', TRUST_PROXY: 'yes' }),
      (err: unknown) => {
        assert.ok(err instanceof ConfigError);
        const text = err.problems.join('\n');
        for (const name of ['PORT', 'TRUST_PROXY', 'DATABASE_URL', 'TEMPORAL_ADDRESS'])
          assert.match(text, new RegExp(name));
        return true;
      },
    );
  });
  it('has a secrets key default only in development and test', () => {
    assert.equal(loadConfig({ ...base, NODE_ENV: 'development' }).secretsKey.length, 32);
    assert.throws(
      () => loadConfig({ ...base, NODE_ENV: 'production' }),
      /SECRETS_KEY is required in production/,
    );
    assert.throws(() => loadConfig({ ...base, SECRETS_KEY: 'c2hvcnQ=' }), /SECRETS_KEY must be 32 bytes/);
    const key = Buffer.alloc(32, 7).toString('base64');
    assert.deepEqual(loadConfig({ ...base, SECRETS_KEY: key }).secretsKey, Buffer.alloc(32, 7));
  });
  it('refuses private webhook targets in production unless forced on purpose', () => {
    const prod = { ...base, NODE_ENV: 'production', SECRETS_KEY: Buffer.alloc(32, 7).toString('base64') };
    assert.throws(
      () => loadConfig({ ...prod, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }),
      /WEBHOOK_ALLOW_PRIVATE_TARGETS=true is refused in production/,
    );
    const forced = loadConfig({
      ...prod,
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOK_ALLOW_PRIVATE_TARGETS_IN_PRODUCTION: 'true',
    });
    assert.equal(forced.webhookAllowPrivateTargets, true);
    assert.equal(
      loadConfig({ ...base, NODE_ENV: 'development', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' })
        .webhookAllowPrivateTargets,
      true,
    );
  });
  it("says when PUBLIC_URL is an IP address, which the console's passkeys cannot use", () => {
    const said = (url: string) => {
      const lines: string[] = [];
      warnOfForcedSettings(loadConfig({ ...base, NODE_ENV: 'test', PUBLIC_URL: url }), {
        error: (msg) => lines.push(msg),
      });
      return lines;
    };
    assert.match(said('http://127.0.0.1:3000').join(), /PUBLIC_URL .* names an IP address/);
    assert.match(said('http://[::1]:3000').join(), /names an IP address/);
    assert.deepEqual(said('http://localhost:3000'), []);
    assert.deepEqual(said('https://leads.example.com'), []);
  });
  it('applies documented defaults', () => {
    const c = loadConfig({ ...base, NODE_ENV: 'test' });
    assert.equal(c.port, 3000);
    assert.equal(c.rateLimitPerMinute, 300);
    assert.equal(c.temporalNamespace, 'default');
    assert.equal(c.temporalTaskQueue, 'lead-service');
    assert.equal(c.trustProxy, false);
    assert.equal(c.webhookAllowPrivateTargets, false);
  });
  it('starts deliveries with the search attributes WEBHOOK_SEARCH_ATTRIBUTES names, all three unless told', () => {
    const names = (value?: string) =>
      loadConfig({
        ...base,
        NODE_ENV: 'test',
        ...(value !== undefined && { WEBHOOK_SEARCH_ATTRIBUTES: value }),
      }).webhookSearchAttributes.map((k) => k.name);
    assert.deepEqual(names(), ['WebhookEventType', 'WebhookEndpointId', 'WorkspaceId']);
    assert.deepEqual(names('none'), []);
    assert.deepEqual(names(' WorkspaceId , WebhookEventType,WorkspaceId '), [
      'WebhookEventType',
      'WorkspaceId',
    ]);
    for (const [value, said] of [
      [
        'WebhookEventType,Endpoint',
        /WEBHOOK_SEARCH_ATTRIBUTES must be none or a comma-separated list of .* \(not one of them: Endpoint\)/,
      ],
      ['none,WorkspaceId', /WEBHOOK_SEARCH_ATTRIBUTES .* \(not one of them: none\)/],
      [',', /WEBHOOK_SEARCH_ATTRIBUTES must be none or a comma-separated list/],
    ] as const)
      assert.throws(() => names(value), said);
  });
  it('has the worker check only the search attributes it sets', () => {
    const check = (value: string) =>
      workerSearchAttributes(
        loadConfig({ ...base, NODE_ENV: 'test', WEBHOOK_SEARCH_ATTRIBUTES: value }).webhookSearchAttributes,
      ).map((k) => k.name);
    assert.deepEqual(
      check('WebhookEventType,WebhookEndpointId,WorkspaceId'),
      SEARCH_ATTRIBUTES.map((k) => k.name),
    );
    // The worker's other workflows carry WorkspaceId whatever the deliveries carry.
    assert.deepEqual(check('none'), ['WorkspaceId', 'ApprovalOperation', 'ApprovalStatus']);
    assert.deepEqual(check('WebhookEndpointId'), [
      'WebhookEndpointId',
      'WorkspaceId',
      'ApprovalOperation',
      'ApprovalStatus',
    ]);
  });
  it('serves metrics on 9464 (API) and 9465 (worker), on free ports in tests, or where told', () => {
    const dev = loadConfig({ ...base, NODE_ENV: 'development' });
    assert.deepEqual([dev.metricsPort, dev.workerMetricsPort], [9464, 9465]);
    const test = loadConfig({ ...base, NODE_ENV: 'test' });
    assert.deepEqual([test.metricsPort, test.workerMetricsPort], [0, 0]);
    const told = loadConfig({ ...base, NODE_ENV: 'test', METRICS_PORT: '9100', WORKER_METRICS_PORT: '9101' });
    assert.deepEqual([told.metricsPort, told.workerMetricsPort], [9100, 9101]);
    assert.throws(
      () => loadConfig({ ...base, METRICS_PORT: '70000' }),
      /METRICS_PORT must be an integer between 0 and 65535/,
    );
  });
});

describe('DKIM signing configuration', () => {
  const dir = path.join(repoRoot(), '.data', `config-test-${process.pid}-${randomBytes(4).toString('hex')}`);
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  after(() => rmSync(dir, { recursive: true, force: true }));
  const keyFile = (name: string, pem: string | Buffer) => {
    const file = path.join(dir, name);
    writeFileSync(file, pem, { mode: 0o600 });
    return file;
  };
  const rsa = (bits: number) =>
    generateKeyPairSync('rsa', { modulusLength: bits }).privateKey.export({ type: 'pkcs8', format: 'pem' });
  const good = keyFile('good.pem', rsa(2048));
  const mail = {
    ...base,
    NODE_ENV: 'test',
    SMTP_URL: 'smtp://relay.example.net:587',
    MAIL_FROM: 'hello@mail.example.com',
  };
  const refused = (env: NodeJS.ProcessEnv) => {
    try {
      loadConfig(env);
    } catch (err) {
      assert.ok(err instanceof ConfigError, String(err));
      return err.problems.join('\n');
    }
    assert.fail('the configuration was accepted');
  };

  it("signs for MAIL_FROM's domain, or a parent of it that DKIM_DOMAIN names", () => {
    const own = loadConfig({ ...mail, DKIM_SELECTOR: 'leads2026', DKIM_PRIVATE_KEY_FILE: good }).smtp?.dkim;
    assert.equal(own?.domain, 'mail.example.com');
    assert.equal(own?.selector, 'leads2026');
    assert.equal(own?.privateKey.asymmetricKeyDetails?.modulusLength, 2048);
    const parent = loadConfig({
      ...mail,
      DKIM_SELECTOR: 'leads2026',
      DKIM_PRIVATE_KEY_FILE: good,
      DKIM_DOMAIN: 'Example.com',
    }).smtp?.dkim;
    assert.equal(parent?.domain, 'example.com');
    assert.equal(loadConfig(mail).smtp?.dkim, undefined, 'no key, no signature');
  });

  it("sends from a return path on MAIL_FROM's domain, or on one sharing its organisational domain", () => {
    assert.equal(loadConfig(mail).smtp?.returnPathDomain, 'mail.example.com');
    assert.equal(
      loadConfig({ ...mail, MAIL_RETURN_PATH_DOMAIN: 'Bounces.Example.com' }).smtp?.returnPathDomain,
      'bounces.example.com',
    );
    assert.match(
      refused({ ...mail, MAIL_RETURN_PATH_DOMAIN: 'bounces.other.example' }),
      /MAIL_RETURN_PATH_DOMAIN \(bounces\.other\.example\) must share MAIL_FROM's organisational domain \(example\.com\)/,
    );
    assert.match(
      refused({ ...mail, MAIL_RETURN_PATH_DOMAIN: 'not a domain' }),
      /MAIL_RETURN_PATH_DOMAIN must be/,
    );
    assert.deepEqual(loadConfig(mail).mailFeedbackDomains, []);
    assert.deepEqual(
      loadConfig({ ...mail, MAIL_FEEDBACK_DOMAINS: ' FBL.example.net, feedback.mail.example ' })
        .mailFeedbackDomains,
      ['fbl.example.net', 'feedback.mail.example'],
    );
    assert.match(
      refused({ ...mail, MAIL_FEEDBACK_DOMAINS: 'fbl.example.net,not a domain' }),
      /MAIL_FEEDBACK_DOMAINS must be/,
    );
  });

  it('needs the selector and the key file together, and SMTP_URL to sign for', () => {
    assert.match(
      refused({ ...mail, DKIM_SELECTOR: 'leads2026' }),
      /DKIM_SELECTOR and DKIM_PRIVATE_KEY_FILE are needed together/,
    );
    assert.match(
      refused({ ...mail, DKIM_PRIVATE_KEY_FILE: good }),
      /DKIM_SELECTOR and DKIM_PRIVATE_KEY_FILE are needed together/,
    );
    assert.match(
      refused({ ...mail, DKIM_DOMAIN: 'example.com' }),
      /DKIM_DOMAIN needs DKIM_SELECTOR and DKIM_PRIVATE_KEY_FILE/,
    );
    assert.match(
      refused({ ...base, NODE_ENV: 'test', DKIM_SELECTOR: 'leads2026', DKIM_PRIVATE_KEY_FILE: good }),
      /SMTP_URL, which is not set/,
    );
  });

  it('refuses a selector that is not a DNS label, and a domain that is not a name', () => {
    for (const selector of ['bad_selector', 'two.labels', '-dash', 'x'.repeat(64)])
      assert.match(
        refused({ ...mail, DKIM_SELECTOR: selector, DKIM_PRIVATE_KEY_FILE: good }),
        /DKIM_SELECTOR must be a DNS label/,
        selector,
      );
    assert.match(
      refused({ ...mail, DKIM_SELECTOR: 's1', DKIM_PRIVATE_KEY_FILE: good, DKIM_DOMAIN: 'not a domain' }),
      /DKIM_DOMAIN must be a domain name/,
    );
  });

  it('refuses a key file that is missing, unreadable, not a private key, not RSA, or under 1024 bits', () => {
    const key = (file: string) => refused({ ...mail, DKIM_SELECTOR: 's1', DKIM_PRIVATE_KEY_FILE: file });
    assert.match(
      key(path.join(dir, 'absent.pem')),
      /DKIM_PRIVATE_KEY_FILE cannot be read \(.*absent\.pem\): ENOENT/,
    );
    assert.match(key(dir), /DKIM_PRIVATE_KEY_FILE cannot be read \(.*\): EISDIR/);
    const publicOnly = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({
      type: 'spki',
      format: 'pem',
    });
    assert.match(key(keyFile('public.pem', publicOnly)), /holds no unencrypted PEM private key/);
    assert.match(key(keyFile('junk.pem', 'not a key\n')), /holds no unencrypted PEM private key/);
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({
      type: 'pkcs8',
      format: 'pem',
    });
    assert.match(key(keyFile('ec.pem', ec)), /must be an RSA key, not ec/);
    assert.match(
      key(keyFile('small.pem', rsa(512))),
      /is a 512-bit RSA key; receivers ignore signatures under 1024 bits\. Use 2048/,
    );
    assert.equal(
      loadConfig({ ...mail, DKIM_SELECTOR: 's1', DKIM_PRIVATE_KEY_FILE: keyFile('k1024.pem', rsa(1024)) })
        .smtp?.dkim?.privateKey.asymmetricKeyDetails?.modulusLength,
      1024,
      '1024 bits is the least receivers accept',
    );
  });

  it("refuses a signing domain DMARC would not align with MAIL_FROM's, naming both variables", () => {
    for (const domain of ['example.org', 'other.mail.example.com', 'ample.com'])
      assert.match(
        refused({ ...mail, DKIM_SELECTOR: 's1', DKIM_PRIVATE_KEY_FILE: good, DKIM_DOMAIN: domain }),
        new RegExp(
          `DKIM_DOMAIN \\(${domain.replaceAll('.', '\\.')}\\) must be MAIL_FROM's domain \\(mail\\.example\\.com\\) or a parent of it`,
        ),
        domain,
      );
  });
});
