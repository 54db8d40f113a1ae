import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readIntent, readReply, REPLY_RULES_VERSION } from '../../domain/leads/reply-reading';

// The one reader of replies (docs/reply-reading.md). These cases were the qualification reader's
// (`classifyMessage`, intent-rules-2026-11-v1); their classifications are unchanged.
describe('reply reading: what qualification reads', () => {
  const CASES: [string, NonNullable<ReturnType<typeof readReply>>['classification'] | null][] = [
    ['Do you have slots next week?', 'BOOKING_REQUEST'],
    ['Can we book a call on Tuesday?', 'BOOKING_REQUEST'],
    ['What is your availability on Friday?', 'BOOKING_REQUEST'],
    ['Please call me after 5', 'BOOKING_REQUEST'],
    ['How much would it cost for 12 people?', 'PRICING_QUESTION'],
    ['Could you send a quote?', 'PRICING_QUESTION'],
    ['Does it work with Outlook?', 'PRODUCT_QUESTION'],
    ['Sounds good', 'POSITIVE'],
    ['Not right now, maybe later', 'NOT_NOW'],
    ['Not now, but book a call with me in a few months', 'NOT_NOW'],
    ['No budget until next quarter', 'NOT_NOW'],
    ['Circle back next year', 'NOT_NOW'],
    ['Not interested, please remove me', 'NOT_INTERESTED'],
    ['We went with another supplier. How much was yours anyway?', 'NOT_INTERESTED'],
    ['Thanks for the brochure.', 'OTHER'],
    ['', null],
    ['(no text)', null],
  ];
  for (const [text, expected] of CASES)
    it(`reads ${JSON.stringify(text)} as ${expected}`, () =>
      assert.equal(readReply(text)?.classification ?? null, expected));

  // Where the two readers disagreed, decided once (docs/reply-reading.md lists each): [text, was, now].
  const DECIDED: [string, string, string][] = [
    ['Give me a call tomorrow', 'OTHER', 'BOOKING_REQUEST'],
    ['Ring me on Monday', 'OTHER', 'BOOKING_REQUEST'],
    ['Can we speak on Monday', 'OTHER', 'BOOKING_REQUEST'],
    ['Not at the moment, thanks', 'OTHER', 'NOT_NOW'],
    ['Please stop texting me', 'OTHER', 'NOT_INTERESTED'],
    ['How does it work with Outlook', 'OTHER', 'PRODUCT_QUESTION'],
  ];
  for (const [text, was, now] of DECIDED)
    it(`reads ${JSON.stringify(text)} as ${now} (was ${was})`, () =>
      assert.equal(readReply(text)?.classification, now));

  it('moves intent as the rules say, never down from buying intent on a vague reply', () => {
    assert.deepEqual(readIntent('PRICING_QUESTION', { intent: null, score: null }), {
      intent: 'EVALUATING',
      score: 70,
      next: 'SEND_QUOTE',
    });
    assert.equal(readIntent('PRODUCT_QUESTION', { intent: 'EVALUATING', score: 70 }), undefined);
    assert.equal(readIntent('POSITIVE', { intent: 'BOOKING_READY', score: 90 }), undefined);
    assert.equal(readIntent('OTHER', { intent: 'NOT_NOW', score: 20 }), undefined);
    assert.equal(readIntent('OTHER', { intent: null, score: null })?.intent, 'EXPLORATORY');
    assert.equal(readIntent('NOT_NOW', { intent: 'BOOKING_READY', score: 90 })?.next, 'FOLLOW_UP_LATER');
    assert.equal(readIntent('NOT_INTERESTED', { intent: 'EVALUATING', score: 70 })?.next, 'CLOSE_LOST');
  });

  it('has a version of its own, after the two it replaces', () => {
    assert.equal(REPLY_RULES_VERSION, 'replies-2026-11-v2');
  });
});

// What a chasing agent does with the same reading: hand over (why, how soon), stop quietly, or go on.
const agentReads = (text: string) => {
  const r = readReply(text);
  if (r?.handover) return `${r.handover.reason}/${r.handover.priority}`;
  return r?.declined ? 'declined' : 'other';
};

describe('reply reading: what a follow-up agent reads', () => {
  // The follow-up reader's cases (`readReply` in agents/templates.ts, follow-up-2026-11-v1), unchanged.
  const KEPT: [string, string][] = [
    ['I will contact my solicitor about this.', 'complaint/urgent'],
    ['This is unacceptable. I want to make a complaint.', 'complaint/high'],
    ['Stop emailing me, this is spam', 'complaint/high'],
    ['Is this a scam? Can you call me?', 'complaint/high'],
    ['Can I speak to someone about the price before Friday?', 'request_to_talk/high'],
    ['Please call me after 5', 'request_to_talk/high'],
    ['I would like to talk to a real person', 'request_to_talk/high'],
    ['Not interested, but call me if prices drop', 'request_to_talk/high'],
    ['Not interested, thanks.', 'declined'],
    ['No thanks', 'declined'],
    ['Not now', 'declined'],
    ['Not at the moment', 'declined'],
    ['Please unsubscribe me', 'declined'],
    ['No thanks. Why did you write to me?', 'declined'],
    ['Does it work with Outlook?', 'question/normal'],
    ['Could you send a quote?', 'question/normal'],
    ['How long does the setup take', 'question/normal'],
    ['Thanks for the brochure.', 'other'],
    ['Sounds good', 'other'],
    ['', 'other'],
  ];
  for (const [text, expected] of KEPT)
    it(`reads ${JSON.stringify(text)} as ${expected}`, () => assert.equal(agentReads(text), expected));

  // Where the two readers disagreed, decided once (docs/reply-reading.md lists each): [text, was, now].
  const DECIDED: [string, string, string][] = [
    ['Do you have slots next week?', 'question/normal', 'request_to_talk/high'],
    ['Can we book a call on Tuesday?', 'question/normal', 'request_to_talk/high'],
    ["Let's meet next week", 'other', 'request_to_talk/high'],
    ['Please unsubscribe', 'other', 'declined'],
    ['We went with another supplier. How much was yours anyway?', 'question/normal', 'declined'],
    ['Maybe later, we are too busy', 'other', 'declined'],
    ['No budget until next quarter', 'other', 'declined'],
    ["I'd like to know the price", 'other', 'question/normal'],
    ['Will do, thanks', 'question/normal', 'other'],
    ['Do let me know', 'question/normal', 'other'],
  ];
  for (const [text, was, now] of DECIDED)
    it(`reads ${JSON.stringify(text)} as ${now} (was ${was})`, () => assert.equal(agentReads(text), now));
});
