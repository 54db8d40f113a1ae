import { openDatabase } from '../../domain/data-source';
import { operatorActor } from '../../domain/kernel/actor';
import { DomainError } from '../../domain/kernel/errors';
import { runOperation } from '../../domain/kernel/runner';
import { importProspects } from '../../domain/prospects/operations/prospect-import';
import { testServices } from '../../tooling/services';

/**
 * Runs `prospect.import` as the operator in a process of its own, so the peak memory it reports is the
 * import's alone, not a test runner's. Prints one JSON line: the peak RSS before the import (every module
 * loaded, the pool open) and after it, in KiB as `process.resourceUsage()` gives them, and the refusal or
 * the report.
 *   node --import tsx test/helpers/import-rss.ts <database url> <workspace id> <input as JSON>
 */
async function main([url, workspaceId, input]: string[]) {
  const db = await openDatabase(url!, { poolSize: 1 });
  try {
    const baseline = process.resourceUsage().maxRSS;
    const actor = operatorActor({ door: 'admin', requestId: 'import-rss' });
    const outcome = await runOperation(testServices(db), importProspects, actor, JSON.parse(input!), {
      workspaceId,
    }).then(
      (output) => ({ output }),
      (err: unknown) => {
        if (!(err instanceof DomainError)) throw err;
        return { refusal: { code: err.code, message: err.message, details: err.details } };
      },
    );
    console.log(
      JSON.stringify({ baseline_kib: baseline, peak_kib: process.resourceUsage().maxRSS, ...outcome }),
    );
  } finally {
    await db.destroy();
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
