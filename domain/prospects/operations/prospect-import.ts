import * as yup from 'yup';
import { describe } from '../../kernel/json-schema';
import { WRITE, defineOperation } from '../../kernel/operation';
import { workspaceTimezone } from '../../leads';
import { CSV_ENCODINGS, importCsv } from '../import';
import { PROSPECTS_WRITE } from '../requirements';
import { listName } from '../schemas';
import { IMPORT_REPORT } from '../views';

export const importProspects = defineOperation({
  name: 'prospect.import',
  title: 'Import a candidate list from CSV',
  description:
    'Reads a CSV file on the server into a prospect list (made if new): columns email, phone, first_name, last_name, company, industry, role, country, website (at least email or phone). A file that cannot be read as a whole (a wrong header, bytes not valid in its encoding, a record over 64 KiB or a field over 4 KiB, a quote not closed, no rows) is refused, naming the line, and nothing is stored; bad rows are reported by line and skipped; a candidate already in the list is left as it is.',
  returns: '{ list, rows, imported, already_present, bad_rows, bad: [{ line, field, reason }] }.',
  requirement: PROSPECTS_WRITE,
  reach: 'workspace',
  // It reads a file on the server: the operator's shell only, never a key.
  operatorOnly: true,
  ...WRITE,
  idempotent: true,
  input: yup.object({
    file: describe(
      yup.string().min(1).required('file is required'),
      'Path of the CSV file: a header row, then a row per prospect.',
    ),
    list: listName.required('list is required'),
    encoding: describe(
      yup
        .string()
        .oneOf([...CSV_ENCODINGS], `encoding must be one of ${CSV_ENCODINGS.join(', ')}`)
        .default('utf-8'),
      "How the file's text is encoded: utf-8 (the default; a BOM is accepted), or latin1 / windows-1252 for older spreadsheet exports (both read as windows-1252). A byte the encoding does not allow refuses the file, naming its line.",
    ),
  }),
  output: IMPORT_REPORT,
  doors: {
    admin: {
      command: 'prospect import',
      flags: (f) => ({ file: f.file, list: f.list, encoding: f.encoding }),
    },
  },
  summary: (i) => `Import ${i.file} into the prospect list "${i.list}"`,
  run: async (ctx, i) => {
    const report = await importCsv(ctx.data, {
      file: i.file,
      list: i.list,
      encoding: i.encoding,
      timezone: await workspaceTimezone(ctx.data, ctx.workspaceId!),
    });
    ctx.audit(ctx.workspaceId!, {
      list_id: report.list.id,
      rows: report.rows,
      imported: report.imported,
      already_present: report.already_present,
      bad_rows: report.bad_rows,
    });
    return report;
  },
});
