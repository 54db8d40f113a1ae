import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { parse, type CsvError } from 'csv-parse';
import { DomainError } from '../kernel/errors';
import { EMAIL_PATTERN } from '../kernel/validate';
import { countryOfTimezone, normaliseEmail, normalisePhone } from '../leads/normalise';
import { PROSPECT_FIELDS, type ProspectField } from './entities';
import { prospectsIn, type Candidate } from './repository';
import type { Data } from '../kernel/data';

/** Header names accepted for each field (lower case, spaces and dashes read as underscores). */
const ALIASES: Record<string, ProspectField> = {
  email: 'email',
  email_address: 'email',
  phone: 'phone',
  phone_number: 'phone',
  mobile: 'phone',
  first_name: 'first_name',
  firstname: 'first_name',
  last_name: 'last_name',
  lastname: 'last_name',
  company: 'company',
  company_name: 'company',
  organisation: 'company',
  organization: 'company',
  industry: 'industry',
  role: 'role',
  title: 'role',
  job_title: 'role',
  country: 'country',
  website: 'website',
};

const BATCH = 1_000;
const MAX_FIELD = 200;
/** Bad rows listed in the answer; the count covers them all. */
export const MAX_REPORTED = 100;

export type BadRow = { line: number; field?: string; reason: string };
export type ImportReport = {
  list: { id: string; name: string };
  rows: number;
  imported: number;
  already_present: number;
  bad_rows: number;
  bad: BadRow[];
};

/** The header as fields, or a refusal naming the column that is wrong and what is accepted. */
function readHeader(header: string[]): (ProspectField | null)[] {
  const fields = header.map(
    (h) =>
      ALIASES[
        h
          .trim()
          .toLowerCase()
          .replace(/[\s-]+/g, '_')
      ] ?? null,
  );
  const unknown = header.find((_, i) => fields[i] === null);
  const accepted = `accepted columns: ${PROSPECT_FIELDS.join(', ')}`;
  if (unknown !== undefined)
    throw new DomainError(
      'invalid_request',
      `the file's header has an unknown column "${unknown}"; ${accepted}.`,
      {
        field: 'file',
      },
    );
  const seen = fields.find((f, i) => fields.indexOf(f) !== i);
  if (seen)
    throw new DomainError('invalid_request', `the file's header names ${seen} twice.`, { field: 'file' });
  if (!fields.includes('email') && !fields.includes('phone'))
    throw new DomainError(
      'invalid_request',
      `the file's header needs an email or a phone column; ${accepted}.`,
      {
        field: 'file',
      },
    );
  return fields;
}

/** One record as a candidate, or why it is not one. */
function candidate(record: Record<string, string>, line: number, timezone: string): Candidate | BadRow {
  const c = { line } as Candidate;
  for (const f of PROSPECT_FIELDS) {
    const v = record[f]?.trim() ?? '';
    if (v.length > MAX_FIELD)
      return { line, field: f, reason: `${f} is longer than ${MAX_FIELD} characters` };
    c[f] = v === '' ? null : v;
  }
  if (c.email) {
    if (!EMAIL_PATTERN.test(c.email))
      return { line, field: 'email', reason: 'email is not an email address' };
    c.email = normaliseEmail(c.email);
  }
  if (c.phone) {
    const phone = normalisePhone(c.phone, countryOfTimezone(timezone));
    if (!phone) return { line, field: 'phone', reason: 'phone is not a phone number' };
    c.phone = phone;
  }
  if (!c.email && !c.phone) return { line, reason: 'the row has neither an email nor a phone' };
  return c;
}

/**
 * Streams a CSV file into a list: parsed with csv-parse (quotes, embedded newlines and a BOM handled),
 * checked row by row, stored 1,000 rows per statement, so memory stays flat however long the file.
 * A wrong header refuses the whole file; a bad row is reported by line (the last line of its record)
 * and skipped; a row already in the list is left as it is, so importing a file twice adds nothing.
 */
export async function importCsv(
  data: Data,
  opts: { file: string; list: string; timezone: string },
): Promise<ImportReport> {
  const repo = prospectsIn(data);
  const list = await repo.ensureList(opts.list);
  const bad: BadRow[] = [];
  let badRows = 0;
  const report = (b: BadRow) => {
    badRows++;
    if (bad.length < MAX_REPORTED) bad.push(b);
  };
  let rows = 0;
  let imported = 0;
  let batch: Candidate[] = [];
  const flush = async () => {
    imported += await repo.insert(list.id, batch);
    batch = [];
  };
  let headerError: DomainError | undefined;
  const malformed = new Set<number>();
  await stat(opts.file).catch(() => {
    throw new DomainError('invalid_request', `cannot read the file ${opts.file}`, { field: 'file' });
  });
  const source = createReadStream(opts.file);
  const parser = source.pipe(
    parse({
      bom: true,
      trim: true,
      skip_empty_lines: true,
      relax_quotes: true,
      info: true,
      skip_records_with_error: true,
      on_skip: (err: CsvError | undefined) => {
        const line = (err as { lines?: number } | undefined)?.lines;
        if (line === undefined || malformed.has(line)) return;
        malformed.add(line);
        rows++;
        report({ line, reason: `the row is malformed (${err!.message.split(':')[0]})` });
      },
      columns: (header: string[]) => {
        try {
          return readHeader(header).map((f) => f as string);
        } catch (err) {
          headerError = err as DomainError;
          throw err;
        }
      },
    }),
  );
  source.on('error', (err) => parser.destroy(err));
  try {
    for await (const { record, info } of parser as AsyncIterable<{
      record: Record<string, string>;
      info: { lines: number };
    }>) {
      rows++;
      const c = candidate(record, info.lines, opts.timezone);
      if ('reason' in c) report(c);
      else batch.push(c);
      if (batch.length >= BATCH) await flush();
    }
  } catch (err) {
    source.destroy();
    if (headerError) throw headerError;
    throw err;
  }
  await flush();
  const valid = rows - badRows;
  return {
    list: { id: list.id, name: list.name },
    rows,
    imported,
    already_present: valid - imported,
    bad_rows: badRows,
    bad,
  };
}
