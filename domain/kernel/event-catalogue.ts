/**
 * The event catalogue: every type an endpoint can subscribe to, with the shape of its `data`.
 * `emitEvent` takes the type and its data together, so an event whose fields do not match its type
 * fails to compile. The outbox adds `subject_type`, `subject_id` and `occurred_at` to every `data`.
 */

type Contact = {
  first_name?: string | null;
  last_name?: string | null;
  email?: string | null;
  phone?: string | null;
  postcode?: string | null;
};

type Score = {
  lead_id: string;
  score_id: string;
  total: number;
  grade: string;
  previous_grade: string | null;
  confidence: number;
  trigger_event: string;
  scoring_version: string;
};

type Meeting = {
  booking_id: string;
  lead_id: string;
  provider: string;
  status: string;
  previous_status: string | null;
  starts_at: string;
  ends_at: string;
};

type Suppression = {
  lead_id: string | null;
  suppression_id: string;
  channel: string;
  reason: string;
  source: string;
};

type QuoteRef = {
  quote_id: string;
  /** The quote's number, given when it was first sent (gap-free per workspace). */
  number: string;
  /** 1 for the first version; each revision supersedes the one before. */
  revision: number;
};

/** The buying-intent states a lead moves between. */
export type Intent = 'EXPLORATORY' | 'EVALUATING' | 'BOOKING_READY' | 'NOT_NOW' | 'NOT_INTERESTED';

/** What one inbound message says, by the intent rules. */
export type Classification =
  | 'BOOKING_REQUEST'
  | 'PRICING_QUESTION'
  | 'PRODUCT_QUESTION'
  | 'POSITIVE'
  | 'NOT_NOW'
  | 'NOT_INTERESTED'
  | 'OTHER';

export type NextBestAction =
  'BOOK_MEETING' | 'SEND_QUOTE' | 'ANSWER_QUESTION' | 'NURTURE' | 'FOLLOW_UP_LATER' | 'CLOSE_LOST';

export type OpportunityStage = 'QUALIFIED' | 'BOOKED' | 'PROPOSAL' | 'WON' | 'LOST';

export type EventDataMap = {
  'lead.created': Contact & { lead_id: string; status: string; source_type: string; source: string };
  'lead.touched': Contact & {
    lead_id: string;
    touch_id: string;
    outcome: 'MERGED' | 'SUPPRESSED';
    changed_fields: string[];
    source_type: string;
    source: string;
  };
  'lead.qualified': {
    lead_id: string;
    result: 'QUALIFIED' | 'NOT_QUALIFIED';
    status: string;
    reasons: { code: string }[];
    answers: Record<string, unknown>;
  };
  'lead.status_changed': {
    lead_id: string;
    status: string;
    previous_status: string;
    changed_by:
      | { type: 'api_key'; key_id: string; user_id: string }
      | { type: 'member'; user_id: string }
      | { type: 'agent'; agent_id: string }
      | { type: 'operator' };
  };
  /** `handoff_id` and `priority`: the hand-over a person picks up (as in ai.escalated). */
  'lead.handover_required': { lead_id: string; reason: string; handoff_id: string; priority: string };
  'lead.scored': Score;
  'score.changed': Score;
  'lead.intent_changed': {
    lead_id: string;
    /** The new buying-intent state. */
    intent: Intent;
    /** The state before; null for the lead's first classified message. */
    previous_intent: Intent | null;
    /** 0 to 100: how ready to buy the lead's messages read. */
    intent_score: number;
    /** What a person (or an agent) should do next. */
    next_best_action: NextBestAction;
    /** 0 to 1: the share of the qualification questions the lead has answered. */
    qualification_completeness: number;
    /** The inbound message whose classification moved the intent. */
    message_id: string;
    /** The classification of that message. */
    classification: Classification;
    /** The version of the classification rules. */
    rules_version: string;
  };
  'message.received': {
    message_id: string;
    lead_id: string;
    channel: string;
    direction: 'inbound';
    body: string;
    received_at: string;
  };
  'reply.received': {
    message_id: string;
    lead_id: string;
    channel: string;
    /** What the reply says, by the versioned intent rules; null when it could not be classified. */
    classification: Classification | null;
  };
  'booking.created': Omit<Meeting, 'previous_status'>;
  'meeting.booked': Meeting;
  'meeting.pending': Meeting;
  /** `reason`: why it was declined or cancelled (by a person, or unconfirmed when its start came). */
  'meeting.cancelled': Meeting & { reason: string };
  'meeting.no_show': Meeting;
  'contact.unsubscribed': Suppression;
  'contact.suppressed': Suppression;
  'opportunity.created': {
    opportunity_id: string;
    lead_id: string;
    /** Where it stands: QUALIFIED, BOOKED, PROPOSAL (a quote was sent), then WON or LOST. */
    stage: OpportunityStage;
    /** INBOUND (the lead came to the workspace) or OUTBOUND (it was prospected). */
    motion: 'INBOUND' | 'OUTBOUND';
    /** What opened it: a booking, a qualification with buying intent, or a person. */
    origin: 'BOOKING' | 'BUYING_INTENT' | 'MANUAL';
  };
  'opportunity.won': {
    opportunity_id: string;
    lead_id: string;
    reason: string;
    /** The confirmed payment that closed it; null when it was closed by hand. */
    payment: {
      invoice_id: string;
      /** In the currency's minor unit (cents). */
      amount: number;
      /** ISO 4217, upper case. */
      currency: string;
      recurring: boolean;
      /** month or year for a recurring payment; null for a one-off. */
      interval: 'month' | 'year' | null;
      /** Monthly recurring revenue in minor units; null for a one-off. */
      mrr: number | null;
    } | null;
  };
  'opportunity.lost': { opportunity_id: string; lead_id: string; reason: string };
  'ai.escalated': {
    handoff_id: string;
    lead_id: string;
    conversation_id: string;
    reason: string;
    priority: string;
  };
  'quote.sent': QuoteRef & {
    opportunity_id: string;
    lead_id: string;
    /** In the currency's minor unit (cents). */
    total: number;
    /** ISO 4217, upper case. */
    currency: string;
    /** The last day it can be accepted (YYYY-MM-DD, in the workspace's time zone). */
    valid_until: string;
  };
  'quote.viewed': QuoteRef & { lead_id: string };
  'quote.accepted': QuoteRef & { lead_id: string; opportunity_id: string; signature_id: string };
  'quote.declined': QuoteRef & { lead_id: string; opportunity_id: string };
  'quote.expired': QuoteRef & { lead_id: string; valid_until: string };
  'signature.completed': QuoteRef & {
    signature_id: string;
    lead_id: string;
    signed_at: string;
    /** SHA-256 (hex) of the exact quote revision the signer was shown. */
    document_sha256: string;
    /** The version of the consent text the signer agreed to. */
    consent_version: string;
  };
  'invoice.issued': {
    invoice_id: string;
    number: string;
    /** In the currency's minor unit (cents). */
    total: number;
    currency: string;
    /** YYYY-MM-DD. */
    due_date: string;
    quote_id: string;
    lead_id: string;
  };
  'invoice.paid': {
    invoice_id: string;
    number: string;
    total: number;
    currency: string;
    /** The accepted quote it was issued from. */
    quote_id: string;
    lead_id: string;
    paid_at: string;
  };
  'invoice.overdue': {
    invoice_id: string;
    number: string;
    /** What is still due, in minor units. */
    amount_due: number;
    currency: string;
    due_date: string;
    lead_id: string;
    /** The reminder email; null when the customer cannot be emailed (no address, opted out). */
    reminder_message_id: string | null;
  };
  /** Sent only by the endpoint test, to that endpoint, whatever it subscribed to. */
  'endpoint.test': { endpoint_id: string };
};

export type EventType = keyof EventDataMap;
export type EventData<T extends EventType> = EventDataMap[T];

/** Sent only by the endpoint test, to that endpoint, whatever it subscribed to. */
export const TEST_EVENT_TYPE = 'endpoint.test' satisfies EventType;

/** The spec's catalogue, in its order; endpoints subscribe to some of these, or to `*`. */
export const EVENT_TYPES = [
  'lead.created',
  'lead.touched',
  'lead.qualified',
  'lead.status_changed',
  'lead.handover_required',
  'lead.scored',
  'score.changed',
  'lead.intent_changed',
  'message.received',
  'reply.received',
  'booking.created',
  'meeting.booked',
  'meeting.pending',
  'meeting.cancelled',
  'meeting.no_show',
  'contact.unsubscribed',
  'contact.suppressed',
  'opportunity.created',
  'opportunity.won',
  'opportunity.lost',
  'ai.escalated',
  'quote.sent',
  'quote.viewed',
  'quote.accepted',
  'quote.declined',
  'quote.expired',
  'signature.completed',
  'invoice.issued',
  'invoice.paid',
  'invoice.overdue',
] as const satisfies readonly Exclude<EventType, typeof TEST_EVENT_TYPE>[];

// Fails to compile when a type has data but is missing from the list above.
type Unlisted = Exclude<EventType, (typeof EVENT_TYPES)[number] | typeof TEST_EVENT_TYPE>;
const everyTypeListed: [Unlisted] extends [never] ? true : Unlisted = true;
void everyTypeListed;

/** What each type means, as the published schemas and `GET /api/v1/event-types` describe it. */
export const EVENT_DESCRIPTIONS: Record<EventType, string> = {
  'lead.created': 'A new lead reached the workspace from any source (ad form, import, added by hand).',
  'lead.touched':
    'Someone already a lead arrived again through a form, an import or the API; matched and updated, not duplicated.',
  'lead.qualified': 'A lead finished qualification and was scored; carries the outcome and the answers.',
  'lead.status_changed':
    'A lead moved to a different status, by a person, the conversation assistant, an agent or external software.',
  'lead.handover_required': 'Follow-up stopped and a person is needed.',
  'lead.scored': 'A lead received a new score.',
  'score.changed': 'A new score moved the lead to a different grade (A to D).',
  'lead.intent_changed':
    "The lead's buying intent moved to a new state (for example EXPLORATORY to BOOKING_READY, or NOT_NOW), by the versioned intent rules reading an inbound message; carries the new and previous state, intent score, next best action and qualification completeness.",
  'message.received': 'An inbound message arrived on any channel.',
  'reply.received':
    'A lead replied; once per inbound message, fired from the stored message, with its classification.',
  'booking.created': 'An appointment was booked for a lead.',
  'meeting.booked': 'A meeting was confirmed by a calendar or a person.',
  'meeting.pending':
    'A lead chose a time no connected calendar could confirm; waits for someone to confirm or decline.',
  'meeting.cancelled': 'A booked or requested meeting was cancelled by the lead, a calendar or a person.',
  'meeting.no_show': 'A booked meeting was marked no-show.',
  'contact.unsubscribed': 'A person opted out on one channel or all.',
  'contact.suppressed':
    'An address or number was blocked for a reason other than opt-out: bounce, complaint, invalid number, manual block.',
  'opportunity.created':
    'A lead became a sales opportunity: when it was booked, qualified with buying intent, or by hand.',
  'opportunity.won':
    'An opportunity closed as won; carries the lead, the reason, and the payment (amount, currency, recurring, interval, MRR) when a confirmed payment closed it.',
  'opportunity.lost': 'An opportunity closed as lost; carries the lead and the reason.',
  'ai.escalated':
    'The conversation assistant handed a lead to a person, or asked a person for background help while keeping the conversation; carries reason and priority.',
  'quote.sent':
    'A quote revision was sent to the customer; carries quote id and number, opportunity and lead, revision, total, valid-until date.',
  'quote.viewed': 'The customer opened a sent quote revision for the first time; once per revision.',
  'quote.accepted': 'The customer accepted a quote revision on its public page, with a signature.',
  'quote.declined': 'The customer declined a quote revision on its public page.',
  'quote.expired':
    'A sent quote revision passed its valid-until date unaccepted and can no longer be signed.',
  'signature.completed': 'The customer signed a quote revision with a simple electronic signature.',
  'invoice.issued':
    'An invoice was numbered and issued from an accepted quote; carries invoice id and number, total, currency, due date.',
  'invoice.paid':
    'An invoice was paid in full; carries invoice id and number, total, the quote it came from.',
  'invoice.overdue':
    'An issued invoice passed its due date unpaid and its first overdue reminder went out; carries the amount still due.',
  'endpoint.test': "Sent only by an endpoint's Test, to that endpoint, whatever it subscribed to.",
};
