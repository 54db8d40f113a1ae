import type { Classification, Intent, NextBestAction } from '../kernel/event-catalogue';

/**
 * The one reader of inbound messages: versioned keyword rules (no model) that qualification and the
 * follow-up agents both read. Bump the version when any rule or reading below changes; every intent
 * change records it. Older `lead.intent_changed` events keep the label of the rules that made them
 * (`intent-rules-2026-11-v1`); docs/reply-reading.md says what changed and why.
 */
export const REPLY_RULES_VERSION = 'replies-2026-11-v2';

export const INTENTS = [
  'EXPLORATORY',
  'EVALUATING',
  'BOOKING_READY',
  'NOT_NOW',
  'NOT_INTERESTED',
] as const satisfies readonly Intent[];

/** The states that count as buying intent: a qualified lead in one becomes an opportunity. */
export const BUYING: readonly Intent[] = ['EVALUATING', 'BOOKING_READY'];

/** Why a person must answer a message, and how soon. */
type Handover = {
  reason: 'complaint' | 'request_to_talk' | 'question';
  priority: 'normal' | 'high' | 'urgent';
};

/** What one inbound message says, read once. */
export type ReplyReading = {
  /** What it says about buying: stored on the message, carried by reply.received, moves the lead's intent. */
  classification: Classification;
  /** A person must answer it (a complaint, a request to talk, a question); null when none is needed. */
  handover: Handover | null;
  /** The lead said no, or not now, and asked nothing a person must answer: a chase ends. */
  declined: boolean;
};

const words = (...w: string[]) => new RegExp(`\\b(${w.join('|')})\\b`, 'i');

// A question mark, or a line that opens as a question ("how does it...", "can you..."), not "Will do",
// "Do let me know" or "When it suits you".
const QUESTION =
  /\?|^\s*(how|what|when|where|why|who|which)\s+(is|are|was|were|do|does|did|can|could|would|will|should|about|much|many|long|soon|often)\b|^\s*(can|could|do|does|is|are|will|would)\s+(you|we|i|it|this|that|there|they|your|the|my|our)\b/im;

// In this order: "not interested" wins over "interested", "not now" over a booking word, a booking word
// over a price word.
const CLASSIFICATIONS: [Classification, RegExp][] = [
  [
    'NOT_INTERESTED',
    /\b(not interested|no longer interested|no thanks|no thank you|stop (contacting|emailing|messaging|texting)|remove me|unsubscribe|we went with|found (someone|another))\b/i,
  ],
  [
    'NOT_NOW',
    /\b(not (right )?now|not at the moment|maybe later|not (a good|the right) time|too busy|get back to (me|you|us) later|(circle|check|come) back (to (me|us) )?(later|next (month|quarter|year))|in a (few|couple of) (weeks|months)|after the holidays|(not|no budget) (until|before) next (month|quarter|year))\b/i,
  ],
  [
    'BOOKING_REQUEST',
    /\b((book|schedule|set up|arrange|plan)\b.{0,30}\b(call|meeting|demo|appointment|visit|time)|when (are|would) you (be )?(free|available)|are you (free|available)|(any|free|open) (slots?|times?)|slots?\b.{0,20}\b(today|tomorrow|this|next)|availability|let'?s (meet|talk|have a call)|can we (meet|talk|speak|call|have a call)|call me|phone me|ring me|give me a call)\b/i,
  ],
  [
    'PRICING_QUESTION',
    /\b(price|prices|pricing|cost|costs|quote|quotation|how much|budget|rates?|discount|payment terms)\b/i,
  ],
  ['PRODUCT_QUESTION', QUESTION],
  ['POSITIVE', /\b(yes|sounds (good|great)|great|interested|perfect|sure|love to|keen)\b/i],
];

// Order matters: a complaint that asks for a call or a question is a complaint.
const LEGAL = words('lawyer', 'solicitor', 'attorney', 'legal action', 'sue', 'court', 'ombudsman', 'gdpr');
const COMPLAINT = words(
  'complain',
  'complaint',
  'unacceptable',
  'disgusting',
  'terrible',
  'awful',
  'rude',
  'scam',
  'spam',
  'harass\\w*',
  'angry',
  'furious',
  'refund',
  'stop (emailing|messaging|contacting|texting) me',
);
// The ways to ask for a call are booking words too (BOOKING_REQUEST above): one decision, two uses.
const TALK = words(
  'call me',
  'phone me',
  'ring me',
  'give me a call',
  'speak (to|with)',
  'talk (to|with)',
  'a real person',
  'a human',
  'someone from',
  'your manager',
);

function handoverFor(text: string, classification: Classification): Handover | null {
  if (LEGAL.test(text)) return { reason: 'complaint', priority: 'urgent' };
  if (COMPLAINT.test(text)) return { reason: 'complaint', priority: 'high' };
  if (TALK.test(text) || classification === 'BOOKING_REQUEST')
    return { reason: 'request_to_talk', priority: 'high' };
  if (classification === 'PRICING_QUESTION' || classification === 'PRODUCT_QUESTION')
    return { reason: 'question', priority: 'normal' };
  return null;
}

/** Reads one inbound message; null when there is nothing to read (an empty body). */
export function readReply(body: string): ReplyReading | null {
  const text = body.trim();
  if (text === '' || text === '(no text)') return null;
  const classification = CLASSIFICATIONS.find(([, re]) => re.test(text))?.[0] ?? 'OTHER';
  const handover = handoverFor(text, classification);
  const declined = handover === null && (classification === 'NOT_INTERESTED' || classification === 'NOT_NOW');
  return { classification, handover, declined };
}

export type IntentReading = { intent: Intent; score: number; next: NextBestAction };

const READINGS: Record<Exclude<Classification, 'POSITIVE' | 'OTHER'>, IntentReading> = {
  BOOKING_REQUEST: { intent: 'BOOKING_READY', score: 90, next: 'BOOK_MEETING' },
  PRICING_QUESTION: { intent: 'EVALUATING', score: 70, next: 'SEND_QUOTE' },
  PRODUCT_QUESTION: { intent: 'EXPLORATORY', score: 45, next: 'ANSWER_QUESTION' },
  NOT_NOW: { intent: 'NOT_NOW', score: 20, next: 'FOLLOW_UP_LATER' },
  NOT_INTERESTED: { intent: 'NOT_INTERESTED', score: 0, next: 'CLOSE_LOST' },
};

/**
 * Where a message leaves the lead's intent. A question about the product from a lead already
 * evaluating or ready keeps it there; a positive word lifts a lead with no buying intent to
 * EXPLORATORY and keeps one that has it; anything else unreadable changes nothing (undefined),
 * except that a lead's first message makes it EXPLORATORY.
 */
export function readIntent(
  classification: Classification,
  previous: { intent: Intent | null; score: number | null },
): IntentReading | undefined {
  const buying = previous.intent !== null && BUYING.includes(previous.intent);
  if (classification === 'OTHER' || classification === 'POSITIVE' || classification === 'PRODUCT_QUESTION') {
    if (buying) return undefined;
    if (classification === 'PRODUCT_QUESTION') return READINGS.PRODUCT_QUESTION;
    if (classification === 'POSITIVE') return { intent: 'EXPLORATORY', score: 55, next: 'NURTURE' };
    return previous.intent === null ? { intent: 'EXPLORATORY', score: 30, next: 'NURTURE' } : undefined;
  }
  return READINGS[classification];
}
