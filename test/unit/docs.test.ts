import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { configSchema } from '../../infra/config';
import { repoRoot } from '../../tooling/paths';
import { referenceDocs } from '../../tooling/reference-docs';

const root = repoRoot();
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

/** README.md and every Markdown file under docs/, by path from the repository root. */
const manual = () => [
  'README.md',
  ...readdirSync(path.join(root, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.md'))
    .map((f) => path.join('docs', f))
    .sort(),
];

/** Lines outside fenced code blocks, with inline code spans blanked. */
const prose = (text: string) => {
  let fenced = false;
  return text.split('\n').map((line) => {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    return fenced || /^\s*(```|~~~)/.test(line) ? '' : line.replace(/`[^`]*`/g, '``');
  });
};

/** GitHub's anchors for a file's headings (lower case, punctuation dropped, spaces to hyphens, repeats numbered). */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = fenced ? undefined : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = heading
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replaceAll(' ', '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Relative link targets in a Markdown file: `[text](target)`, outside code. */
const links = (text: string) =>
  prose(text).flatMap((line) => [...line.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]!));

describe('the manual', () => {
  it('has generated references that match the code (run `npx tsx scripts/docs.ts` after changing them)', async () => {
    for (const [file, text] of await referenceDocs())
      assert.equal(
        existsSync(path.join(root, file)) ? read(file) : undefined,
        text,
        `${file} is stale: run npx tsx scripts/docs.ts`,
      );
  });

  it('describes every configuration variable', () => {
    const undescribed = Object.entries(configSchema.describe().fields)
      .filter(([, f]) => !('meta' in f && typeof f.meta?.description === 'string' && f.meta.description))
      .map(([name]) => name);
    assert.deepEqual(undescribed, [], 'add .meta({ description }) to these in infra/config.ts');
  });

  it('keeps the README to one screen: under 300 lines, none over 120 characters', () => {
    const lines = read('README.md').replace(/\n$/, '').split('\n');
    assert.ok(lines.length < 300, `README.md has ${lines.length} lines`);
    const long = lines.flatMap((l, i) => ([...l].length > 120 ? [`line ${i + 1}: ${[...l].length}`] : []));
    assert.deepEqual(long, []);
  });

  it('links only to files (and headings) that exist', () => {
    const broken: string[] = [];
    for (const file of manual())
      for (const link of links(read(file))) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue;
        const [target = '', anchor] = link.split('#');
        const resolved = target === '' ? file : path.normalize(path.join(path.dirname(file), target));
        if (!existsSync(path.join(root, resolved))) broken.push(`${file}: ${link} (no ${resolved})`);
        else if (
          anchor &&
          resolved.endsWith('.md') &&
          !anchors(read(resolved)).has(decodeURIComponent(anchor))
        )
          broken.push(`${file}: ${link} (no heading #${anchor} in ${resolved})`);
      }
    assert.deepEqual(broken, []);
  });
});
