import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifyMessage, readIntent } from '../../domain/leads/intent-rules';

describe('intent rules', () => {
  const CASES: [string, ReturnType<typeof classifyMessage>][] = [
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
    it(`reads ${JSON.stringify(text)} as ${expected}`, () => assert.equal(classifyMessage(text), expected));

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
});
