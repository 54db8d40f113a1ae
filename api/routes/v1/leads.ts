import Router from '@koa/router';
import type { DataSource } from 'typeorm';
import { keyActor } from '../../../domain/actor';
import { DomainError, invalid } from '../../../domain/errors';
import { validateIdempotencyKey, withIdempotency } from '../../../domain/idempotency';
import type { Contact, LeadView } from '../../../domain/leads/lead-row';
import { LEADS_READ, LEADS_WRITE } from '../../../domain/leads/requirements';
import { leadPatchSchema, objectBody, trimStrings } from '../../../domain/leads/schemas';
import { addLeadNoteIn } from '../../../domain/operations/add-lead-note';
import {
  createLeadFromIntakeIn,
  parseIntake,
  suppressedError,
} from '../../../domain/operations/create-lead-from-intake';
import { getLeadWithActivity } from '../../../domain/operations/get-lead-with-activity';
import { searchLeads, singleValued } from '../../../domain/operations/search-leads';
import { setLeadStatusIn, type Warning } from '../../../domain/operations/set-lead-status';
import { updateLeadDetailsIn } from '../../../domain/operations/update-lead-details';
import { validate } from '../../../domain/validate';
import type { AppContext, RequestState } from '../../context';
import { toHttp } from '../../errors';
import { requires } from '../../middleware/authenticate';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const leadId = (ctx: AppContext) => {
  const id = (ctx.params as { id: string }).id;
  if (!UUID.test(id)) throw invalid('id', 'id must be a UUID');
  return id.toLowerCase();
};

const actorOf = (ctx: AppContext) =>
  keyActor(ctx.state.principal!, {
    door: 'rest',
    requestId: ctx.state.requestId,
    clientIp: ctx.state.clientIp,
  });

type Step = 'lead.update' | 'lead.set_status' | 'lead.add_note';

export function leadRoutes(db: DataSource) {
  const router = new Router<RequestState>();

  router.get('/leads', requires(LEADS_READ), async (ctx) => {
    const p = ctx.state.principal!;
    ctx.body = await searchLeads(db, actorOf(ctx), p.workspaceId, singleValued(ctx.query));
  });

  router.post('/leads', requires(LEADS_WRITE), async (ctx) => {
    const p = ctx.state.principal!;
    const key = validateIdempotencyKey(ctx.get('Idempotency-Key') || undefined);
    const intake = parseIntake(ctx.state.body); // bad input is refused before the Idempotency-Key is taken
    const result = await withIdempotency(db, p.keyId, key, ctx.state.body, async (m) => {
      const r = await createLeadFromIntakeIn(m, actorOf(ctx), p.workspaceId, { parsed: intake });
      if (r.outcome === 'SUPPRESSED') return toHttp(suppressedError(), ctx.state.requestId);
      return { status: r.outcome === 'CREATED' ? 201 : 200, body: { data: r.lead, outcome: r.outcome } };
    });
    if (result.replayed) ctx.set('Idempotent-Replayed', 'true');
    if (result.status === 409) ctx.state.auditReason = 'contact is suppressed';
    ctx.status = result.status;
    ctx.body = result.body;
  });

  router.get('/leads/:id', requires(LEADS_READ), async (ctx) => {
    ctx.body = await getLeadWithActivity(db, actorOf(ctx), ctx.state.principal!.workspaceId, leadId(ctx));
  });

  // Not a transaction: each step commits on its own, and a refused later step reports what was applied.
  router.patch('/leads/:id', requires(LEADS_WRITE), async (ctx) => {
    const id = leadId(ctx);
    const patch = validate(leadPatchSchema, trimStrings(objectBody(ctx.state.body)), { strict: true });
    const actor = actorOf(ctx);
    const { status, note, ...details } = patch;
    const applied: Step[] = [];
    const warnings: Warning[] = [];
    const run = async <T>(step: Step, fn: () => Promise<T>): Promise<T> => {
      try {
        const out = await fn();
        applied.push(step);
        return out;
      } catch (err) {
        if (
          err instanceof DomainError &&
          (err.code === 'conflict' || (applied.length > 0 && err.code !== 'forbidden'))
        ) {
          throw new DomainError('conflict', err.message, {
            ...err.details,
            failed_step: step,
            applied: [...applied],
          });
        }
        throw err;
      }
    };
    let lead: LeadView | undefined;
    if (Object.keys(details).length > 0) {
      lead = await run('lead.update', () =>
        db.transaction((m) => updateLeadDetailsIn(m, actor, id, details as Contact)),
      );
    }
    if (status !== undefined) {
      const r = await run('lead.set_status', () =>
        db.transaction((m) => setLeadStatusIn(m, actor, id, status)),
      );
      warnings.push(...r.warnings);
      lead = r.lead;
    }
    if (note !== undefined) {
      lead = (await run('lead.add_note', () => db.transaction((m) => addLeadNoteIn(m, actor, id, note))))
        .lead;
    }
    ctx.body = { data: lead, applied, warnings };
  });

  return router;
}
