/**
 * The leads area: leads, their contact details, status, score and buying intent, and suppressed contacts.
 * This file is its public face: nothing outside domain/leads/ imports anything but this file.
 *
 * It offers its operations and tables; the hooks it raises to the areas above it; the rules others
 * follow on a lead (its statuses and moves, qualification, what an inbound message does to it, how a
 * contact is read, suppression, the intake a sourced prospect goes through); and, for now, its leads
 * and suppressions repositories, which the areas above read and lock leads through.
 */

import { addLeadNote } from './operations/add-note';
import { archiveLead } from './operations/archive';
import { createLead } from './operations/create';
import { editLead } from './operations/edit';
import { getLead } from './operations/get';
import { qualifyLead } from './operations/qualify';
import { searchLeads } from './operations/search';
import { setLeadStatus } from './operations/set-status';
import { suppressContact } from './operations/contact-suppress';
import { updateLead } from './operations/update';
import { LeadEntity, LeadNoteEntity, ScoreEntity, SuppressionEntity, TouchEntity } from './entities';

/** The operations this area registers. */
export const operations = {
  searchLeads,
  getLead,
  createLead,
  updateLead,
  editLead,
  setLeadStatus,
  addLeadNote,
  archiveLead,
  qualifyLead,
  suppressContact,
} as const;
/**
 * Two operations other areas run as steps of their own (a booking sets the status; a send refused for
 * a suppressed address suppresses it). Kept by name until those callers use `operations`.
 */

/** Its tables. */
export const entities = [LeadEntity, LeadNoteEntity, TouchEntity, SuppressionEntity, ScoreEntity];

/** What it tells the areas above it (domain/registry.ts wires their handlers). */
export { opportunityWanted, leadClosed, intakeMessageArrived, inboundMessageKnown } from './hooks';
/** What an inbound message does to its lead, read once. */
export type { InboundEffect } from './hooks';

/** A lead as stored. */
export type { Lead } from './entities';
/** What lead operations need: to read leads, to change them. */
export { LEADS_READ, LEADS_WRITE } from './requirements';
/** A lead's statuses, and whether a lead may move from one to another. */
export { LEAD_STATUSES, canMove } from './status-rules';
/** Moves a locked lead to another status, telling who moved it; its opportunity follows. */
export { moveStatus } from './move-status';
/** Whether a lead finished qualification as qualified. */
export { isQualified } from './intent';
/** What an inbound message does to a lead's attention and buying intent. */
export { inboundEffect } from './intent';
/** Tells of a lead's buying intent moved by a message (and opens its opportunity when it should). */
export { announceIntent } from './intent';
/** What one inbound message says (its classification, whether a person must answer), read once. */
export type { ReplyReading } from './reply-reading';
/** A lead named by id, as an operation's input field. */
export { leadIdField } from './schemas';
/** A JSON body as an object, or a refusal naming the body. */
export { objectBody } from './schemas';
/** Contact details in stored form: empty as null, email lower-cased, phone in E.164 where it parses. */
export { normaliseContact } from './contact-input';
/** The workspace's time zone, which says how national phone numbers are read. */
export { workspaceTimezone } from './contact-input';
/** An email and a phone in the form matching uses; the country a time zone names (for national numbers). */
export { countryOfTimezone, normaliseEmail, normalisePhone } from './normalise';
/** The one intake every door shares, its answer, and the refusal of a suppressed contact. */
export { recordIntake, suppressedError } from './intake';
export type { IntakeResult } from './intake';
/** Blocks an address in a workspace, however it was asked; the suppression as stored. */
export { suppressAddress } from './suppress';
export type { SuppressionView } from './suppress';
/** A lead locked for a change, with the workspace's data to change it in. */
export { lockLead } from './repository/leads';
/** What the areas above read of a lead and change on it, and an address's suppression. */
export {
  applyInboundEffect,
  flagForAttention,
  leadNamed,
  liveLeadWithAddress,
  mustHaveLead,
  setFollowUp,
  suppressionOf,
} from './marks';
