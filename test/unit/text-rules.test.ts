import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { icsEvent } from '../../domain/appointments/ical';
import { isStopWord } from '../../domain/conversations/sending';
import { render, unknownPlaceholders, valuesFor } from '../../domain/campaigns/templates';
import { untilWindowOpens } from '../../domain/campaigns/window';
import { needsTimezone, normaliseContact } from '../../domain/leads/contact-input';

describe('the text written to calendars, templates and windows', () => {
  it('escapes what a lead typed so it cannot add iCalendar lines (CR, LF, CRLF, ; , \\)', () => {
    const ics = icsEvent(
      {
        uid: 'b1',
        start: new Date('2026-12-01T10:00:00Z'),
        end: new Date('2026-12-01T11:00:00Z'),
        summary: 'Ana\rATTENDEE:mailto:x@evil.example\nX;Y,Z\\',
      },
      new Date('2026-11-23T00:00:00Z'),
    );
    const lines = ics.replace(/\r\n /g, '').split('\r\n');
    assert.ok(!lines.some((l) => l.startsWith('ATTENDEE')), ics);
    assert.ok(lines.includes('SUMMARY:Ana\\nATTENDEE:mailto:x@evil.example\\nX\\;Y\\,Z\\\\'), ics);
    assert.ok(lines.every((l) => Buffer.byteLength(l) <= 75 || l.startsWith('SUMMARY')));
  });

  it('knows its placeholders, names an unknown one, and fills missing values with nothing', () => {
    assert.deepEqual(unknownPlaceholders('Hi {first_name}, {frist_name} and {} too'), ['frist_name', '']);
    const values = valuesFor({ first_name: null, last_name: 'Lima', email: null, phone: null }, 'Acme');
    assert.equal(render('Hi {first_name}, from {workspace_name}!', values), 'Hi, from Acme!');
  });

  it('reads STOP and its synonyms, alone, in any case', () => {
    for (const word of ['STOP', 'stop', ' Stop. ', 'unsubscribe', 'QUIT!']) assert.ok(isStopWord(word), word);
    for (const text of ['please stop calling me', 'stopping by tomorrow']) assert.ok(!isStopWord(text), text);
  });

  it('waits for the sending window in the workspace time zone, across a daylight-saving change', () => {
    const w = { weekdays: [1, 2, 3, 4, 5, 6, 7], start_hour: 9, end_hour: 10 };
    // Saturday 2026-03-28 23:30 in Paris (UTC+1); clocks go forward that night: 09:00 on Sunday is 07:00 UTC.
    const at = new Date('2026-03-28T22:30:00Z');
    assert.equal(
      new Date(at.getTime() + untilWindowOpens(w, at, 'Europe/Paris')).toISOString(),
      '2026-03-29T07:00:00.000Z',
    );
    assert.equal(untilWindowOpens(w, new Date('2026-03-30T07:30:00Z'), 'Europe/Paris'), 0);
  });

  it('reads an international phone number alike in every zone, so the intake skips the zone for it', () => {
    const zones = [undefined, 'UTC', 'Europe/Paris', 'Europe/London', 'America/New_York', 'Australia/Sydney'];
    for (const phone of ['+33 6 12 34 56 78', ' +447911123456', '+1 (415) 555-0100', '+999 123']) {
      const read = zones.map((zone) => normaliseContact({ phone }, zone).phone);
      assert.ok(!needsTimezone({ phone }), phone);
      assert.ok(
        read.every((p) => p === read[0]),
        `${phone}: ${read.join(', ')}`,
      );
    }
    // A national number is read in the workspace's country, so it needs the zone, and is refused without it.
    assert.ok(needsTimezone({ phone: '06 12 34 56 78' }));
    assert.equal(normaliseContact({ phone: '06 12 34 56 78' }, 'Europe/Paris').phone, '+33612345678');
    assert.throws(() => normaliseContact({ phone: '06 12 34 56 78' }, undefined), /time zone/);
    assert.ok(!needsTimezone({ email: 'ana@example.com' }));
  });
});
