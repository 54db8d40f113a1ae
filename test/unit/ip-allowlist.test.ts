import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseCidr } from '../../domain/identity/ip-allowlist';
import { generateApiKey, looksLikeApiKey } from '../../domain/identity/keys';

describe('IP allowlist', () => {
  it('rejects malformed CIDRs', () => {
    for (const bad of ['10.0.0.0/33', 'nonsense', '10.0.0.0/x', '::/129', ''])
      assert.equal(parseCidr(bad), undefined, bad);
  });
});

describe('key format', () => {
  it('is lk_live_ and 40 base62 characters, different every time', () => {
    const keys = new Set(Array.from({ length: 200 }, generateApiKey));
    assert.equal(keys.size, 200);
    for (const k of keys) assert.ok(looksLikeApiKey(k) && k.length === 48, k);
  });
});
