import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rareStretches } from '../../domain/leads/repository/common-trigrams';

describe('what a search asks the trigram index for', () => {
  const common = new Set(['exa', 'xam', 'amp', 'mpl', 'ple', 'lec', 'eco', 'com']);

  it('leaves a common trigram out and keeps the rare stretches either side of it', () => {
    assert.deepEqual(rareStretches('evieco', common), ['eviec']);
    assert.deepEqual(rareStretches('eviecoop', common), ['eviec', 'coop']);
    assert.deepEqual(rareStretches('ecoop', common), ['coop']);
  });

  it('asks for the fragment itself when none of its trigrams is common, or all are', () => {
    assert.deepEqual(rareStretches('omancoll', common), ['omancoll']);
    assert.deepEqual(rareStretches('examplecom', common), ['examplecom']);
    assert.deepEqual(rareStretches('eco', common), ['eco']);
    assert.deepEqual(rareStretches('evieco', new Set()), ['evieco']);
  });

  it('leaves a fragment pg_trgm would split into words as it is', () => {
    assert.deepEqual(rareStretches('zoë.eco', common), ['zoë.eco']);
    assert.deepEqual(rareStretches('ab', common), ['ab']);
  });
});
