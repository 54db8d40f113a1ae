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

type QuoteRef = { quote_id: string; number: string; revision: number };

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
    intent: string;
    previous_intent: string | null;
    intent_score: number;
    next_best_action: string;
    qualification_completeness: number;
  };
  'message.received': {
    message_id: string;
    lead_id: string;
    channel: string;
    direction: 'inbound';
    body: string;
    received_at: string;
  };
  'reply.received': { message_id: string; lead_id: string; channel: string; classification: string | null };
  'booking.created': Omit<Meeting, 'previous_status'>;
  'meeting.booked': Meeting;
  'meeting.pending': Meeting;
  /** `reason`: why it was declined or cancelled (by a person, or unconfirmed when its start came). */
  'meeting.cancelled': Meeting & { reason: string };
  'meeting.no_show': Meeting;
  'contact.unsubscribed': Suppression;
  'contact.suppressed': Suppression;
  'opportunity.created': { opportunity_id: string; lead_id: string; stage: string; motion: string };
  'opportunity.won': {
    opportunity_id: string;
    lead_id: string;
    reason: string;
    payment: {
      amount: number;
      currency: string;
      recurring: boolean;
      interval: string | null;
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
    total: number;
    currency: string;
    valid_until: string;
  };
  'quote.viewed': QuoteRef;
  'quote.accepted': QuoteRef;
  'quote.declined': QuoteRef;
  'quote.expired': QuoteRef;
  'signature.completed': QuoteRef & { signed_at: string };
  'invoice.issued': { invoice_id: string; number: string; total: number; currency: string; due_date: string };
  'invoice.paid': {
    invoice_id: string;
    number: string;
    total: number;
    currency: string;
    quote_id: string | null;
  };
  'invoice.overdue': {
    invoice_id: string;
    number: string;
    amount_due: number;
    currency: string;
    due_date: string;
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
