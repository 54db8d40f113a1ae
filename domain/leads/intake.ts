import { DomainError } from '../kernel/errors';
import { anyYes } from '../kernel/hooks';
import type { OperationContext } from '../kernel/operation';
import { needsTimezone, normaliseContact, workspaceTimezone } from './contact-input';
import type { Lead, Touch } from './entities';
import { inboundMessageKnown, intakeMessageArrived, type IntakeMessage } from './hooks';
import { inboundEffect, isQualified } from './intent';
import { leadsIn } from './repository/leads';
import { announceQualification, scoringOf } from './rescore';
import { CONTACT_FIELDS, leadView, type Contact, type LeadView } from './views';

type IntakeOutcome = Touch['outcome'];
/** The answer (`{ data, outcome }`); a suppressed contact has no lead to show, and is a refusal. */
export type IntakeResult = { data: LeadView | null; outcome: IntakeOutcome };

/** An intake, whatever brought it: an ad form (POST /leads), or a sourced prospect a person approved. */
export type ParsedIntake = {
  contact: Contact;
  source: string;
  /** `ad_form`, `prospecting`: where the lead came from. */
  sourceType: string;
  message?: string;
  answers: Record<string, unknown>;
  /** When the person asked to be contacted; null for a sourced prospect, who did not. */
  consentAt: Date | null;
};

/**
 * The one intake every door shares: dedupe, suppression, the touch, `lead.created` / `lead.touched`,
 * the optional message and qualification.
 */
export async function recordIntake(ctx: OperationContext, intake: ParsedIntake): Promise<IntakeResult> {
  const workspaceId = ctx.workspaceId!;
  const leads = leadsIn(ctx.data);
  // An international phone number, or none, is read without the workspace's time zone: one read less.
  const timezone = needsTimezone(intake.contact) ? await workspaceTimezone(ctx.data, workspaceId) : undefined;
  const contact = normaliseContact(intake.contact, timezone);
  const addresses = [contact.email, contact.phone].filter((a): a is string => !!a);
  await leads.lockAddresses(addresses);

  const {
    leads: [match, other],
    suppressed,
  } = await leads.matchIntake(contact.email ?? null, contact.phone ?? null, addresses);
  const touch = async (leadId: string, outcome: IntakeOutcome, changed: string[]) => {
    // A suppressed submission leaves its outcome only: none of what was submitted is kept or sent.
    const kept = outcome === 'SUPPRESSED' ? {} : contact;
    const { id } = await leads.addTouch({
      lead_id: leadId,
      source_type: intake.sourceType,
      source: intake.source,
      outcome,
      contact: kept,
    });
    await ctx.emit(
      workspaceId,
      'lead.touched',
      { type: 'lead', id: leadId },
      {
        lead_id: leadId,
        touch_id: id,
        // The spec's outcomes for this event are MERGED and SUPPRESSED; a duplicate merged nothing new.
        outcome: outcome === 'SUPPRESSED' ? 'SUPPRESSED' : 'MERGED',
        changed_fields: changed,
        source_type: intake.sourceType,
        source: intake.source,
        ...kept,
      },
    );
  };
  const audit = (leadId: string | null, outcome: IntakeOutcome) =>
    ctx.audit(workspaceId, { lead_id: leadId, outcome, source: intake.source });

  if (suppressed) {
    // Nothing about the submission is stored; an existing lead only learns that it was touched.
    if (match) await touch(match.id, 'SUPPRESSED', []);
    audit(match?.id ?? null, 'SUPPRESSED');
    return { data: null, outcome: 'SUPPRESSED' };
  }

  const message: IntakeMessage | undefined = intake.message
    ? { channel: 'form', body: intake.message, isReply: false }
    : undefined;
  let lead: Lead;
  let outcome: IntakeOutcome;
  if (match) {
    // Fill gaps only: details the lead already has are kept, and an address owned by another lead is not taken.
    const changes: Contact = {};
    for (const f of CONTACT_FIELDS) {
      const value = contact[f];
      if (!value || match[f] !== null) continue;
      if ((f === 'email' || f === 'phone') && other && other[f] === value) continue;
      changes[f] = value;
    }
    const newAnswers = Object.fromEntries(
      Object.entries(intake.answers).filter(([k]) => !(k in match.answers)),
    );
    const changed = [...Object.keys(changes), ...(Object.keys(newAnswers).length ? ['answers'] : [])];
    outcome = changed.length > 0 ? 'MERGED' : 'DUPLICATE';
    const filled = {
      ...changes,
      ...(Object.keys(newAnswers).length ? { answers: { ...match.answers, ...newAnswers } } : {}),
      ...(match.consent_at === null && intake.consentAt ? { consent_at: intake.consentAt } : {}),
    };
    if (outcome === 'MERGED') {
      // A merged lead is written once too: what the submission filled, what its message does, and the
      // new score, instead of an update for each.
      const effect = message ? inboundEffect(match, message.body) : undefined;
      const values = { ...filled, ...effect?.changes };
      const hasInbound = !!message || (await anyYes(inboundMessageKnown.raise(ctx.data, match.id)));
      const scoring = scoringOf({ ...match, ...values }, hasInbound, 'lead.touched');
      lead = await leads.rescore(match.id, scoring.row, values);
      await touch(lead.id, outcome, changed);
      if (message) {
        const before = { intent: match.intent, qualified: isQualified(match) };
        await intakeMessageArrived.raise(ctx, lead, message, { effect: effect!, before });
      }
      await announceQualification(ctx, lead, scoring, match.score_grade);
    } else {
      lead = await leads.fillQuietly(match, filled);
      await touch(lead.id, outcome, changed);
      if (message) {
        const effect = inboundEffect(lead, message.body);
        const before = { intent: lead.intent, qualified: isQualified(lead) };
        await leads.mark(lead.id, effect.changes);
        lead = { ...lead, ...effect.changes };
        await intakeMessageArrived.raise(ctx, lead, message, { effect, before });
      }
    }
  } else {
    // A new lead is written once, with its first touch, its score and what its message does to it.
    const effect = message ? inboundEffect({ intent: null, intent_score: null }, message.body) : undefined;
    const values = {
      first_name: contact.first_name ?? null,
      last_name: contact.last_name ?? null,
      email: contact.email ?? null,
      phone: contact.phone ?? null,
      postcode: contact.postcode ?? null,
      source: intake.source,
      consent_at: intake.consentAt,
      answers: intake.answers,
      ...effect?.changes,
    };
    const scoring = scoringOf(values, !!message, 'lead.created');
    lead = await leads.createScored(values, scoring.row, {
      source_type: intake.sourceType,
      source: intake.source,
      outcome: 'CREATED',
      contact,
    });
    outcome = 'CREATED';
    await ctx.emit(
      workspaceId,
      'lead.created',
      { type: 'lead', id: lead.id },
      {
        lead_id: lead.id,
        ...contact,
        status: lead.status,
        source_type: intake.sourceType,
        source: intake.source,
      },
    );
    // A new lead had no intent; its qualification, announced next, decides on an opportunity.
    if (message)
      await intakeMessageArrived.raise(ctx, lead, message, {
        effect: effect!,
        before: { intent: null, qualified: false },
      });
    await announceQualification(ctx, lead, scoring, null);
  }
  audit(lead.id, outcome);
  return { data: leadView(lead), outcome };
}

/** The refusal of an intake whose contact is suppressed. */
export const suppressedError = () =>
  new DomainError(
    'suppressed',
    'This contact is suppressed (opted out or blocked); nothing was stored.',
    {},
    'contact is suppressed',
  );
