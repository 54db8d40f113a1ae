/**
 * The event catalogue: every type an endpoint can subscribe to, with the shape of its `data`.
 * `emitEvent` takes the type and its data together, so an event whose fields do not match its type
 * fails to compile. The outbox adds `subject_type`, `subject_id` and `occurred_at` to every `data`.
 */

type Contact = {
  /** Absent when not given; null when given empty. */
  first_name?: string | null;
  /** Absent when not given; null when given empty. */
  last_name?: string | null;
  /** Trimmed and lower-cased. */
  email?: string | null;
  /** E.164 where it parses (national numbers read with the workspace's country); otherwise its digits. */
  phone?: string | null;
  /** As given. */
  postcode?: string | null;
};

type Score = {
  /** The lead scored. */
  lead_id: string;
  /** This score, one of the lead's score history. */
  score_id: string;
  /** 0 to 100: the sum of the rules' points, clamped. */
  total: number;
  /** A (75 and over), B (50 to 74), C (25 to 49) or D (under 25); A and B qualify. */
  grade: string;
  /** The grade before this score; null for the lead's first. */
  previous_grade: string | null;
  /** 0 to 1: the share of the qualification questions the lead has answered. */
  confidence: number;
  /** What asked for the score: lead.created, lead.touched, or manual (a person re-qualified the lead). */
  trigger_event: string;
  /** The version of the scoring rules that made it. */
  scoring_version: string;
};

type Meeting = {
  /** The booking (appointment). */
  booking_id: string;
  /** The lead the meeting is with. */
  lead_id: string;
  /** caldav (written to the workspace's connected calendar) or manual (no calendar; a person confirms). */
  provider: string;
  /** Where the booking stands: REQUESTED, PENDING, CONFIRMED, DECLINED, CANCELLED or NO_SHOW. */
  status: string;
  /** The status before this change. */
  previous_status: string | null;
  /** ISO 8601 date-time, UTC. */
  starts_at: string;
  /** ISO 8601 date-time, UTC. */
  ends_at: string;
};

type Suppression = {
  /** The live lead with the blocked address; null when no lead has it. */
  lead_id: string | null;
  /** The suppression record. */
  suppression_id: string;
  /** ALL, or the one channel blocked (email, sms, whatsapp, voice, chat, form). */
  channel: string;
  /** unsubscribed (an opt-out), bounce, complaint, invalid_number or manual. */
  reason: string;
  /** Who or what reported it, such as "unsubscribe link", "sms STOP", "bounce report" or "operator". */
  source: string;
};

type QuoteRef = {
  /** This revision of the quote. */
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

/** An opportunity's stages, in the order it moves through them: validation, the table's CHECK and events. */
export const OPPORTUNITY_STAGES = ['QUALIFIED', 'BOOKED', 'PROPOSAL', 'WON', 'LOST'] as const;
export type OpportunityStage = (typeof OPPORTUNITY_STAGES)[number];

/**
 * Every event type's data: the source `npm run schemas` generates the published schemas from, by name.
 * @public
 */
export type EventDataMap = {
  'lead.created': Contact & {
    /** The new lead. */
    lead_id: string;
    /** The lead's status: NEW. */
    status: string;
    /** ad_form (POST /leads) or prospecting (an approved prospect). */
    source_type: string;
    /** The ad form named by the caller, or the prospect list's name. */
    source: string;
  };
  /** The contact fields are those submitted; none when the contact is suppressed. */
  'lead.touched': Contact & {
    /** The existing lead it matched by email or phone. */
    lead_id: string;
    /** This arrival, one of the lead's touches. */
    touch_id: string;
    /** MERGED (matched; any new details filled gaps) or SUPPRESSED (the contact is blocked; nothing kept). */
    outcome: 'MERGED' | 'SUPPRESSED';
    /** The lead's fields this arrival filled in (answers when it added any); empty when nothing was new. */
    changed_fields: string[];
    /** ad_form (POST /leads) or prospecting (an approved prospect). */
    source_type: string;
    /** The ad form named by the caller, or the prospect list's name. */
    source: string;
  };
  'lead.qualified': {
    /** The lead qualified. */
    lead_id: string;
    /** QUALIFIED for grade A or B, NOT_QUALIFIED for C or D. */
    result: 'QUALIFIED' | 'NOT_QUALIFIED';
    /** The lead's status (NEW, CONTACTED, RESPONDED, QUALIFIED, BOOKED, WON or LOST); qualifying leaves it. */
    status: string;
    /** The scoring rules that matched. */
    reasons: {
      /** Such as HAS_EMAIL, TIMELINE_NOW, HAS_BUDGET or NOT_CONTACTABLE. */
      code: string;
    }[];
    /** The lead's stored answers: its form's questions, or a prospect's company details. */
    answers: Record<string, unknown>;
  };
  'lead.status_changed': {
    /** The lead moved. */
    lead_id: string;
    /** The new status: NEW, CONTACTED, RESPONDED, QUALIFIED, BOOKED, WON or LOST. */
    status: string;
    /** The status before. */
    previous_status: string;
    /** Who moved it: an API key (and the user it belongs to), a member, an AI agent, or the operator. */
    changed_by:
      | {
          /** Through an API key. */
          type: 'api_key';
          /** The API key used. */
          key_id: string;
          /** The user the key belongs to. */
          user_id: string;
        }
      | {
          /** A workspace member on their own authority (an approver). */
          type: 'member';
          /** The workspace member. */
          user_id: string;
        }
      | {
          /** An AI agent's run. */
          type: 'agent';
          /** The AI agent. */
          agent_id: string;
        }
      | {
          /** The operator, at the admin CLI. */
          type: 'operator';
        };
  };
  /** `handoff_id` and `priority`: the hand-over a person picks up (as in ai.escalated). */
  'lead.handover_required': {
    /** The lead handed over. */
    lead_id: string;
    /** complaint, request_to_talk or question. */
    reason: string;
    /** The hand-over a person picks up. */
    handoff_id: string;
    /** normal, high or urgent. */
    priority: string;
  };
  'lead.scored': Score;
  'score.changed': Score;
  'lead.intent_changed': {
    /** The lead whose intent moved. */
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
    /** The stored message. */
    message_id: string;
    /** The lead who sent it. */
    lead_id: string;
    /** Where it arrived: email, sms, whatsapp, voice, chat, or form (sent with a lead form). */
    channel: string;
    /** Always inbound. */
    direction: 'inbound';
    /** The message text. */
    body: string;
    /** When it was stored; ISO 8601 date-time, UTC. */
    received_at: string;
    /**
     * An email's verdict: verified when its sender's domain is proven (DKIM or SPF aligned with From),
     * unverified otherwise, and then the message changed nothing in the workspace (no reply.received);
     * null for other channels.
     */
    authenticity: 'verified' | 'unverified' | null;
  };
  'reply.received': {
    /** The stored message (as in message.received). */
    message_id: string;
    /** The lead who replied. */
    lead_id: string;
    /** Where it arrived: email, sms, whatsapp, voice, chat or form. */
    channel: string;
    /** What the reply says, by the versioned intent rules; null when it could not be classified. */
    classification: Classification | null;
  };
  'campaign.paused': {
    /** The campaign paused. */
    campaign_id: string;
    /** Its name. */
    name: string;
    /** person (someone paused it), or deliverability (the brake: hard bounces or complaints over the workspace's limits). */
    reason: 'person' | 'deliverability';
    /** For the brake, the figures that tripped it; empty for a person's pause. */
    detail: string;
    /** Messages handed to the provider so far. */
    sends: number;
    /** Authenticated hard bounces among them. */
    hard_bounces: number;
    /** Authenticated spam complaints among them. */
    complaints: number;
  };
  'booking.created': Omit<Meeting, 'previous_status'>;
  'meeting.booked': Meeting;
  'meeting.pending': Meeting;
  /** `reason`: why it was declined or cancelled (by a person, or unconfirmed when its start came). */
  'meeting.cancelled': Meeting & {
    /** Why it was declined or cancelled; empty when none was given. */
    reason: string;
  };
  'meeting.no_show': Meeting;
  'contact.unsubscribed': Suppression;
  'contact.suppressed': Suppression;
  'opportunity.created': {
    /** The new opportunity. */
    opportunity_id: string;
    /** The lead it is for; a lead has at most one open. */
    lead_id: string;
    /** Where it stands: QUALIFIED, BOOKED, PROPOSAL (a quote was sent), then WON or LOST. */
    stage: OpportunityStage;
    /** INBOUND (the lead came to the workspace) or OUTBOUND (it was prospected). */
    motion: 'INBOUND' | 'OUTBOUND';
    /** What opened it: a booking, a qualification with buying intent, or a person. */
    origin: 'BOOKING' | 'BUYING_INTENT' | 'MANUAL';
  };
  'opportunity.won': {
    /** The opportunity closed. */
    opportunity_id: string;
    /** The lead it was for. */
    lead_id: string;
    /** Why, in words: given by a person, naming the invoice paid, or saying the lead was marked WON. */
    reason: string;
    /** The confirmed payment that closed it; null when it was closed by hand. */
    payment: {
      /** The invoice paid. */
      invoice_id: string;
      /** In the currency's minor unit (cents). */
      amount: number;
      /** ISO 4217, upper case. */
      currency: string;
      /** True when the invoice repeats monthly or yearly. */
      recurring: boolean;
      /** month or year for a recurring payment; null for a one-off. */
      interval: 'month' | 'year' | null;
      /** Monthly recurring revenue in minor units; null for a one-off. */
      mrr: number | null;
    } | null;
  };
  'opportunity.lost': {
    /** The opportunity closed. */
    opportunity_id: string;
    /** The lead it was for. */
    lead_id: string;
    /** Why, in words: given by a person, or saying the lead was marked LOST. */
    reason: string;
  };
  'ai.escalated': {
    /** The hand-over a person picks up. */
    handoff_id: string;
    /** The lead handed over. */
    lead_id: string;
    /** The lead's thread on the reply's channel: `<lead id>:<channel>`. */
    conversation_id: string;
    /** complaint, request_to_talk or question. */
    reason: string;
    /** normal, high or urgent. */
    priority: string;
  };
  'quote.sent': QuoteRef & {
    /** The opportunity it is for; it moves to PROPOSAL. */
    opportunity_id: string;
    /** The customer it was sent to. */
    lead_id: string;
    /** In the currency's minor unit (cents). */
    total: number;
    /** ISO 4217, upper case. */
    currency: string;
    /** The last day it can be accepted (YYYY-MM-DD, in the workspace's time zone). */
    valid_until: string;
  };
  'quote.viewed': QuoteRef & {
    /** The customer who opened it. */
    lead_id: string;
  };
  'quote.accepted': QuoteRef & {
    /** The customer who accepted it. */
    lead_id: string;
    /** The opportunity it is for. */
    opportunity_id: string;
    /** The signature given (as in signature.completed). */
    signature_id: string;
  };
  'quote.declined': QuoteRef & {
    /** The customer who declined it. */
    lead_id: string;
    /** The opportunity it is for; it stays open for a revision. */
    opportunity_id: string;
  };
  'quote.expired': QuoteRef & {
    /** The customer it was sent to. */
    lead_id: string;
    /** The last day it could have been accepted (YYYY-MM-DD, in the workspace's time zone). */
    valid_until: string;
  };
  'signature.completed': QuoteRef & {
    /** The stored signature and its evidence. */
    signature_id: string;
    /** The customer who signed. */
    lead_id: string;
    /** ISO 8601 date-time, UTC. */
    signed_at: string;
    /** SHA-256 (hex) of the exact quote revision the signer was shown. */
    document_sha256: string;
    /** The version of the consent text the signer agreed to. */
    consent_version: string;
  };
  'invoice.issued': {
    /** The new invoice. */
    invoice_id: string;
    /** Gap-free per workspace, such as INV-000001. */
    number: string;
    /** In the currency's minor unit (cents). */
    total: number;
    /** ISO 4217, upper case. */
    currency: string;
    /** YYYY-MM-DD. */
    due_date: string;
    /** The accepted quote revision it was issued from. */
    quote_id: string;
    /** The customer billed. */
    lead_id: string;
  };
  'invoice.paid': {
    /** The invoice paid. */
    invoice_id: string;
    /** Its number, such as INV-000001. */
    number: string;
    /** The amount paid, in full, in minor units. */
    total: number;
    /** ISO 4217, upper case. */
    currency: string;
    /** The accepted quote it was issued from. */
    quote_id: string;
    /** The customer who paid. */
    lead_id: string;
    /** When the payment was recorded; ISO 8601 date-time, UTC. */
    paid_at: string;
  };
  'invoice.overdue': {
    /** The overdue invoice. */
    invoice_id: string;
    /** Its number, such as INV-000001. */
    number: string;
    /** What is still due, in minor units. */
    amount_due: number;
    /** ISO 4217, upper case. */
    currency: string;
    /** The day it was due (YYYY-MM-DD, in the workspace's time zone). */
    due_date: string;
    /** The customer billed. */
    lead_id: string;
    /** The reminder email; null when the customer cannot be emailed (no address, opted out). */
    reminder_message_id: string | null;
  };
  /** Sent only by the endpoint test, to that endpoint, whatever it subscribed to. */
  'endpoint.test': {
    /** The endpoint tested. */
    endpoint_id: string;
  };
};

export type EventType = keyof EventDataMap;
export type EventData<T extends EventType> = EventDataMap[T];

/** Sent only by the endpoint test, to that endpoint, whatever it subscribed to. */
export const TEST_EVENT_TYPE = 'endpoint.test' satisfies EventType;

/** The spec's catalogue, in its order (then ours); endpoints subscribe to some of these, or to `*`. */
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
  'campaign.paused',
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
  'campaign.paused':
    'A running campaign paused: a person paused it, or the deliverability brake did (proven hard bounces or spam complaints over the workspace limits); carries the sending figures. Resuming it waits for a person to approve.',
  'endpoint.test': "Sent only by an endpoint's Test, to that endpoint, whatever it subscribed to.",
};
