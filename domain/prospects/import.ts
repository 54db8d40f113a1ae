import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CsvError, parse, type Info, type InfoRecord } from 'csv-parse';
import { DomainError } from '../kernel/errors';
import { EMAIL_PATTERN } from '../kernel/validate';
import { countryOfTimezone, normaliseEmail, normalisePhone } from '../leads';
import { PROSPECT_FIELDS, type ProspectField, type ProspectList } from './entities';
import { prospectsIn, type Candidate } from './repository/prospects';
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

/** `latin1` is read as the WHATWG Encoding Standard reads it: as windows-1252, what such files hold. */
export const CSV_ENCODINGS = ['utf-8', 'latin1', 'windows-1252'] as const;
export type CsvEncoding = (typeof CSV_ENCODINGS)[number];

const BATCH = 1_000;
const MAX_FIELD = 200;
/**
 * A prospect's row is at most nine fields of 200 characters. A record or a field far beyond that is not
 * a long value but a broken file (a quote left open, binary data), and csv-parse would hold all of it.
 */
const MAX_RECORD_BYTES = 64 * 1024;
const MAX_FIELD_CHARS = 4 * 1024;
/** Bad rows listed in the answer; the count covers them all. */
const MAX_REPORTED = 100;

type BadRow = { line: number; field?: string; reason: string };
export type ImportReport = {
  list: { id: string; name: string };
  rows: number;
  imported: number;
  already_present: number;
  bad_rows: number;
  bad: BadRow[];
};

/** A record of the file, with the line it ends on and, for a row of the wrong length, why it is bad. */
type Row = { record: Record<string, string>; line: number; malformed?: string };

const refused = (message: string, field: 'file' | 'encoding' = 'file') =>
  new DomainError('invalid_request', `${message} Nothing was imported.`, { field });

/** The header as fields, or a refusal naming the column that is wrong and what is accepted. */
function readHeader(header: string[]): ProspectField[] {
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
  return fields as ProspectField[];
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

const LF = 0x0a;
const CR = 0x0d;
const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/**
 * The file as UTF-8 for csv-parse, decoded as it streams. A byte the encoding does not allow refuses the
 * file, naming its line, instead of turning into "�" in a stored name. Each line is decoded on its own,
 * so the failing one is known: CR and LF never occur inside a multi-byte character.
 */
function decoding(encoding: CsvEncoding): Transform {
  const decoder = new TextDecoder(encoding, { fatal: true });
  let line = 1;
  let started = false;
  let lastWasCr = false;
  const decode = (bytes: Uint8Array, end = false) => {
    try {
      return decoder.decode(bytes, { stream: !end });
    } catch {
      throw refused(
        `line ${line} has bytes that are not valid ${encoding}: give the file's encoding (encoding: latin1 or windows-1252), or save it as UTF-8.`,
        'encoding',
      );
    }
  };
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      try {
        // A UTF-8 BOM read as Latin-1 would become "ï»¿" at the start of the first column's name.
        if (!started && encoding !== 'utf-8' && chunk.subarray(0, 3).equals(UTF8_BOM))
          throw refused(
            `the file starts with a UTF-8 byte order mark: it is UTF-8, not ${encoding}; import it without an encoding.`,
            'encoding',
          );
        started = true;
        let text = '';
        let from = 0;
        for (let i = 0; i < chunk.length; i++) {
          const b = chunk[i];
          if (b !== LF && b !== CR) continue;
          text += decode(chunk.subarray(from, i + 1));
          from = i + 1;
          // CR LF is one line break; a lone CR (old Mac files) is one too, as csv-parse reads it.
          const afterCr = i > 0 ? chunk[i - 1] === CR : lastWasCr;
          if (b === CR || !afterCr) line++;
        }
        text += decode(chunk.subarray(from));
        lastWasCr = chunk.at(-1) === CR;
        done(null, Buffer.from(text));
      } catch (err) {
        done(err as Error);
      }
    },
    flush(done) {
      try {
        done(null, Buffer.from(decode(new Uint8Array(0), true)));
      } catch (err) {
        done(err as Error);
      }
    },
  });
}

/**
 * The line the record csv-parse is reading began on. csv-parse names only the line it stopped on; a
 * refusal names the line to look at, where the long record or the unclosed quote starts. Fed from
 * csv-parse's own callbacks, so it moves in step with the parser, not with the reading ahead of it.
 */
function recordStarts() {
  // The line the last record (or the header) ended on, and how many blank lines were skipped by then.
  let ended = { lines: 0, empty_lines: 0 };
  return {
    at: (now: Pick<Info, 'empty_lines'>) => ended.lines + 1 + now.empty_lines - ended.empty_lines,
    ended: (now: Pick<Info, 'lines' | 'empty_lines'>) => {
      ended = { lines: now.lines, empty_lines: now.empty_lines };
    },
  };
}

/** A parse error as a refusal a person can act on, naming the line where the trouble starts. */
function refusalOf(err: CsvError, start: number): DomainError {
  const line = (err as unknown as Info).lines;
  switch (err.code) {
    case 'CSV_MAX_RECORD_SIZE':
      return refused(
        `the record starting on line ${start} is longer than ${MAX_RECORD_BYTES} bytes, the most a row may hold (a quote left open there makes the rows after it one record).`,
      );
    case 'CSV_QUOTE_NOT_CLOSED':
      return refused(
        `a quoted field of the record starting on line ${start} is never closed: the file ends inside it.`,
      );
    case 'CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE':
      return refused(
        start < line
          ? `a quoted field of the record starting on line ${start} runs to line ${line}, where a quote is followed by more text: its closing quote is missing.`
          : `line ${start}: a quoted field has text after its closing quote; a quote inside a quoted field is written twice ("").`,
      );
    default:
      return refused(`line ${line} is not valid CSV (${err.message}).`);
  }
}

/**
 * Streams a CSV file into a list: decoded (UTF-8 by default), parsed with csv-parse (quotes, embedded
 * newlines and a BOM handled), checked row by row, stored 1,000 rows per statement, so memory stays flat
 * however long the file. Whatever makes the file unreadable refuses all of it, naming the line: a wrong
 * header, a byte the encoding does not allow, a record over 64 KiB or a field over 4 KiB, a quote that
 * is not closed, no rows. It runs in the operation's transaction, so a refusal found after some rows
 * were stored stores nothing, and the list is made only for a file that is accepted. A bad row is
 * reported by line (the last line of its record) and skipped; a row already in the list is left as it
 * is, so importing a file twice adds nothing.
 */
export async function importCsv(
  data: Data,
  opts: { file: string; list: string; timezone: string; encoding: CsvEncoding },
): Promise<ImportReport> {
  const repo = prospectsIn(data);
  const bad: BadRow[] = [];
  let badRows = 0;
  const report = (b: BadRow) => {
    badRows++;
    if (bad.length < MAX_REPORTED) bad.push(b);
  };
  let rows = 0;
  let imported = 0;
  let list: ProspectList | undefined;
  let batch: Candidate[] = [];
  const flush = async () => {
    list ??= await repo.ensureList(opts.list);
    imported += await repo.insert(list.id, batch);
    batch = [];
    return list;
  };
  const unreadable = () =>
    new DomainError('invalid_request', `cannot read the file ${opts.file}`, { field: 'file' });
  const file = await stat(opts.file).catch(() => {
    throw unreadable();
  });
  if (file.isDirectory()) throw unreadable();

  let columns: ProspectField[] | undefined;
  const starts = recordStarts();
  const parser = parse({
    bom: true,
    trim: true,
    skip_empty_lines: true,
    // A quote inside an unquoted field (5" screen, O"Neil) is kept as a character, as real exports need.
    relax_quotes: true,
    // A row of the wrong length is a bad row, reported below; the rows after it are read as usual.
    relax_column_count: true,
    max_record_size: MAX_RECORD_BYTES,
    columns: (header: string[]) => {
      starts.ended(parser.info);
      columns = readHeader(header);
      return columns;
    },
    // Not `cast`: csv-parse builds a context object for every field it casts, five times the parse.
    on_record: (record: Record<string, string>, info: InfoRecord): Row => {
      const start = starts.at(info);
      starts.ended(info);
      if (Object.values(record).some((v) => v.length > MAX_FIELD_CHARS))
        throw refused(
          `line ${start}: a field is longer than ${MAX_FIELD_CHARS} characters, far more than a prospect's detail.`,
        );
      if (!info.error) return { record, line: info.lines };
      const n = (info.error.record as unknown[]).length;
      const got = `${n} ${n === 1 ? 'field' : 'fields'} where the header has ${columns!.length}`;
      // One record over several lines with the wrong number of fields: a quote opened and closed in
      // the wrong places, swallowing rows; refused rather than losing them silently.
      if (start < info.lines)
        throw refused(
          `the record starting on line ${start} runs to line ${info.lines} and has ${got}: a quote is not closed where it should be.`,
        );
      return { record, line: info.lines, malformed: `the row has ${got}` };
    },
  });
  try {
    await pipeline(
      createReadStream(opts.file),
      decoding(opts.encoding),
      parser,
      async (records: AsyncIterable<Row>) => {
        for await (const { record, line, malformed } of records) {
          rows++;
          const c = malformed ? { line, reason: malformed } : candidate(record, line, opts.timezone);
          if ('reason' in c) report(c);
          else batch.push(c);
          if (batch.length >= BATCH) await flush();
        }
      },
    );
  } catch (err) {
    if (err instanceof CsvError) throw refusalOf(err, starts.at(err as unknown as Info));
    throw err;
  }
  if (!columns) throw refused('the file is empty: it needs a header row and a row per prospect.');
  if (rows === 0) throw refused('the file has a header but no rows.');
  const made = await flush();
  const valid = rows - badRows;
  return {
    list: { id: made.id, name: made.name },
    rows,
    imported,
    already_present: valid - imported,
    bad_rows: badRows,
    bad,
  };
}
