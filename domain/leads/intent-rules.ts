import type { Classification, Intent, NextBestAction } from '../kernel/event-catalogue';

/** Bump when any rule below changes; every intent change records the version that made it. */
export const INTENT_RULES_VERSION = 'intent-rules-2026-11-v1';

export const INTENTS = [
  'EXPLORATORY',
  'EVALUATING',
  'BOOKING_READY',
  'NOT_NOW',
  'NOT_INTERESTED',
] as const satisfies readonly Intent[];

/** The states that count as buying intent: a qualified lead in one becomes an opportunity. */
export const BUYING: readonly Intent[] = ['EVALUATING', 'BOOKING_READY'];

// In this order: "not interested" must win over "interested", "not now" over a booking word.
const RULES: [Classification, RegExp][] = [
  [
    'NOT_INTERESTED',
    /\b(not interested|no longer interested|no thanks|no thank you|stop (contacting|emailing|messaging)|remove me|unsubscribe|we went with|found (someone|another))\b/i,
  ],
  [
    'NOT_NOW',
    /\b(not (right )?now|maybe later|not (a good|the right) time|too busy|get back to (me|you|us) later|(circle|check|come) back (to (me|us) )?(later|next (month|quarter|year))|in a (few|couple of) (weeks|months)|after the holidays|(not|no budget) (until|before) next (month|quarter|year))\b/i,
  ],
  [
    'BOOKING_REQUEST',
    /\b((book|schedule|set up|arrange|plan)\b.{0,30}\b(call|meeting|demo|appointment|visit|time)|when (are|would) you (be )?(free|available)|are you (free|available)|(any|free|open) (slots?|times?)|slots?\b.{0,20}\b(today|tomorrow|this|next)|availability|let'?s (meet|talk|have a call)|can we (meet|talk|call|have a call)|call me)\b/i,
  ],
  [
    'PRICING_QUESTION',
    /\b(price|prices|pricing|cost|costs|quote|quotation|how much|budget|rates?|discount|payment terms)\b/i,
  ],
  ['PRODUCT_QUESTION', /\?/],
  ['POSITIVE', /\b(yes|sounds (good|great)|great|interested|perfect|sure|love to|keen)\b/i],
];

/** What one inbound message says; null when there is nothing to read (an empty body). */
export function classifyMessage(body: string): Classification | null {
  const text = body.trim();
  if (text === '' || text === '(no text)') return null;
  return RULES.find(([, re]) => re.test(text))?.[0] ?? 'OTHER';
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
