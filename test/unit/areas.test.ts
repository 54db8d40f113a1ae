import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';
import { repoRoot } from '../../tooling/paths';

/**
 * The areas' shape (docs/areas/README.md): one layout for every area, a face each that offers only what
 * is used outside it (no repository, no entity class to write through), and a kernel that names no
 * area's table. Read from the source files, as a reviewer would.
 */
const root = repoRoot();
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');
const isDir = (p: string) => statSync(path.join(root, p)).isDirectory();
const list = (dir: string) => readdirSync(path.join(root, dir)).sort();

const AREAS = list('domain').filter((n) => isDir(`domain/${n}`) && n !== 'kernel' && n !== 'migrations');
const PRODUCTION = ['api', 'worker', 'activities', 'admin', 'infra', 'workflows', 'domain'];

function tsFiles(dir: string): string[] {
  return list(dir).flatMap((n) => {
    const p = `${dir}/${n}`;
    if (isDir(p)) return tsFiles(p);
    return n.endsWith('.ts') && !n.endsWith('.d.ts') ? [p] : [];
  });
}

const parse = (file: string) => ts.createSourceFile(file, read(file), ts.ScriptTarget.Latest, true);

/** The names a module exports, each with the module it re-exports it from (undefined when declared there). */
function exportsOf(file: string): { name: string; from?: string; typeOnly: boolean }[] {
  const out: { name: string; from?: string; typeOnly: boolean }[] = [];
  const exported = (n: ts.Node) =>
    ts.canHaveModifiers(n) && !!ts.getModifiers(n)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
  for (const s of parse(file).statements) {
    if (ts.isExportDeclaration(s) && s.exportClause && ts.isNamedExports(s.exportClause)) {
      const from = s.moduleSpecifier && (s.moduleSpecifier as ts.StringLiteral).text;
      for (const e of s.exportClause.elements)
        out.push({ name: e.name.text, from, typeOnly: s.isTypeOnly || e.isTypeOnly });
    } else if (ts.isVariableStatement(s) && exported(s)) {
      for (const d of s.declarationList.declarations)
        if (ts.isIdentifier(d.name)) out.push({ name: d.name.text, typeOnly: false });
    } else if ((ts.isFunctionDeclaration(s) || ts.isClassDeclaration(s)) && exported(s) && s.name) {
      out.push({ name: s.name.text, typeOnly: false });
    } else if ((ts.isTypeAliasDeclaration(s) || ts.isInterfaceDeclaration(s)) && exported(s)) {
      out.push({ name: s.name.text, typeOnly: true });
    }
  }
  return out;
}

/** The area a module specifier reaches from `file`, when it is an area's face (`domain/<area>[/index]`). */
function faceReached(file: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier));
  const m = /^domain\/([^/]+)(?:\/index)?$/.exec(target);
  return m && AREAS.includes(m[1]!) ? m[1] : undefined;
}

/**
 * Which names of each area's face production files outside the area use: named imports, and for a
 * namespace import (`import * as leads`), the members read from it; the registry reads every area's
 * `operations`, `entities` and `listen` through its list of areas.
 */
function usedOutside(): Map<string, Set<string>> {
  const used = new Map(AREAS.map((a) => [a, new Set<string>()]));
  for (const file of PRODUCTION.flatMap(tsFiles)) {
    const src = parse(file);
    const visit = (n: ts.Node): void => {
      if (ts.isImportDeclaration(n) || (ts.isExportDeclaration(n) && n.moduleSpecifier)) {
        const area = faceReached(file, (n.moduleSpecifier as ts.StringLiteral).text);
        if (area && !file.startsWith(`domain/${area}/`)) {
          const names = used.get(area)!;
          const clause = ts.isImportDeclaration(n) ? n.importClause?.namedBindings : n.exportClause;
          if (clause && (ts.isNamedImports(clause) || ts.isNamedExports(clause)))
            for (const e of clause.elements) names.add((e.propertyName ?? e.name).text);
          if (clause && ts.isNamespaceImport(clause)) {
            const ns = clause.name.text;
            const text = read(file);
            for (const m of text.matchAll(new RegExp(`\\b${ns}\\.(\\w+)`, 'g'))) names.add(m[1]!);
            if (file === 'domain/registry.ts')
              ['operations', 'entities', 'listen'].forEach((x) => names.add(x));
          }
        }
      }
      ts.forEachChild(n, visit);
    };
    visit(src);
  }
  return used;
}

describe('the areas: one layout, a designed face, a kernel below them', () => {
  it('lays out every area alike: index.ts, entities.ts, repository/, operations/ one a file, views.ts, rule files', async () => {
    const faults: string[] = [];
    for (const area of AREAS) {
      const dir = `domain/${area}`;
      const names = list(dir);
      if (!names.includes('index.ts')) faults.push(`${dir} has no index.ts`);
      for (const n of names) {
        if (isDir(`${dir}/${n}`)) {
          if (n !== 'operations' && n !== 'repository')
            faults.push(`${dir}/${n}/ is neither operations/ nor repository/`);
        } else if (!n.endsWith('.ts')) faults.push(`${dir}/${n} is not a module`);
      }
      if (names.includes('repository.ts')) faults.push(`${dir}/repository.ts should be a repository/ folder`);
      // An area with tables has both; one that only reads others' (analytics) may have repository/ alone.
      if (names.includes('entities.ts') && !names.includes('repository'))
        faults.push(`${dir}: an area with tables has entities.ts and repository/`);
      if (!names.includes('operations')) {
        faults.push(`${dir} has no operations/`);
        continue;
      }
      for (const file of list(`${dir}/operations`)) {
        // One operation a file: the module's one value is the operation, and the file is named for it.
        const values = Object.values(
          (await import(path.join(root, dir, 'operations', file))) as Record<string, unknown>,
        );
        const ops = values.filter(
          (v): v is { name: string } =>
            typeof v === 'object' &&
            v !== null &&
            'run' in v &&
            typeof (v as { name?: unknown }).name === 'string',
        );
        if (values.length !== 1 || ops.length !== 1) {
          faults.push(
            `${dir}/operations/${file} exports ${values.length} values and ${ops.length} operations, not one`,
          );
          continue;
        }
        const stem = file.replace(/\.ts$/, '');
        if (!ops[0]!.name.replace(/[._]/g, '-').endsWith(stem))
          faults.push(`${dir}/operations/${file} is not named for ${ops[0]!.name}`);
      }
    }
    assert.deepEqual(faults, []);
  });

  it('gives every area a face that offers only what is used outside it, and never its repository or entity classes', async () => {
    const used = usedOutside();
    const faults: string[] = [];
    for (const area of AREAS) {
      const face = exportsOf(`domain/${area}/index.ts`);
      for (const e of face) {
        if (!used.get(area)!.has(e.name))
          faults.push(`domain/${area} exports ${e.name}, which no production file outside the area uses`);
        // A repository factory (`leadsIn(data)`) hands out the area's tables: offered, it lets anyone write them.
        if (e.from?.startsWith('./repository') && !e.typeOnly && /In$/.test(e.name))
          faults.push(
            `domain/${area} exports ${e.name} from its repository: offer a function named for what it does`,
          );
        if (e.from === './entities' && !e.typeOnly && /Entity$/.test(e.name))
          faults.push(
            `domain/${area} exports the entity ${e.name}: its tables are written by the area alone`,
          );
      }
      if (!face.some((e) => e.name === 'operations')) faults.push(`domain/${area} exports no operations`);
      // Its operations once: in `operations`, never also one by one.
      const mod = (await import(path.join(root, 'domain', area, 'index.ts'))) as Record<string, unknown>;
      const ops = Object.values(mod.operations as Record<string, unknown>);
      for (const [name, value] of Object.entries(mod))
        if (name !== 'operations' && ops.includes(value))
          faults.push(`domain/${area} exports the operation ${name} twice: once in operations`);
    }
    assert.deepEqual(faults, []);
  });

  it('keeps the kernel below the areas: no kernel file names an area table in its SQL', () => {
    const tables = AREAS.flatMap((area) =>
      list(`domain/${area}`).includes('entities.ts')
        ? [...read(`domain/${area}/entities.ts`).matchAll(/tableName: '([a-z_]+)'/g)].map((m) => m[1]!)
        : [],
    );
    assert.ok(tables.includes('leads') && tables.includes('webhook_deliveries'), 'the tables were found');
    const faults: string[] = [];
    for (const file of tsFiles('domain/kernel')) {
      const code = read(file);
      for (const t of tables)
        if (new RegExp(`\\b(FROM|JOIN|INTO|UPDATE|TABLE|REFERENCES)\\s+${t}\\b`, 'i').test(code))
          faults.push(`${file} names the table ${t}`);
    }
    assert.deepEqual(faults, []);
  });
});
