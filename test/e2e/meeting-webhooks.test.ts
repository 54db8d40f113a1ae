import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bookAppointment } from '../../domain/appointments/operations/book';
import { confirmAppointment } from '../../domain/appointments/operations/confirm';
import { declineAppointment } from '../../domain/appointments/operations/decline';
import { bookingDesk } from '../../infra/temporal/appointments';
import type { Services } from '../../domain/kernel/operation';
import { waitFor } from '../../tooling/processes';
import { asOperator } from '../helpers/fixtures';
import { intakeBody, postLead } from '../helpers/leads';
import { startReceiver, type Receiver } from '../helpers/receiver';
import { startWebhookStack, type WebhookStack } from '../helpers/webhook-stack';
import { testServices } from '../../tooling/services';

const MEETING_FIELDS = [
  'booking_id',
  'lead_id',
  'provider',
  'status',
  'previous_status',
  'starts_at',
  'ends_at',
];

/** The booking events as a customer's endpoint receives them: signed deliveries with the spec's fields. */
describe('booking and meeting events, delivered as webhooks', () => {
  let s: WebhookStack;
  let rx: Receiver;
  let services: Services;
  before(async () => {
    s = await startWebhookStack();
    rx = await startReceiver();
    await s.endpoint(rx, ['booking.created', 'meeting.pending', 'meeting.booked', 'meeting.cancelled']);
    services = testServices(s.db, {
      appointments: bookingDesk(s.db, () => Promise.resolve(s.client), s.config.temporalTaskQueue),
    });
  });
  after(async () => {
    await s.stop();
    await rx.close();
  });

  const received = (type: string, bookingId: string) =>
    waitFor(
      `${type} for ${bookingId}`,
      async () =>
        rx
          .ofType(type)
          .map((r) => ({ ok: r.helperOk, ...(JSON.parse(r.body) as { data: Record<string, unknown> }) }))
          .find((e) => e.data.booking_id === bookingId),
      20_000,
      50,
    );
  const book = async () => {
    const lead = (await postLead(s.app, s.key, intakeBody())).body.data as { id: string };
    const start = new Date(Date.now() + 3 * 86_400_000);
    const booking = await asOperator(
      services,
      bookAppointment,
      {
        leadId: lead.id,
        starts_at: start.toISOString(),
        ends_at: new Date(start.getTime() + 3_600_000).toISOString(),
      },
      { workspaceId: s.workspace.id },
    );
    return { leadId: lead.id, id: (booking as { id: string }).id, start };
  };

  it('booking.created, then meeting.pending with no calendar, then meeting.booked when a person confirms', async () => {
    const b = await book();
    const created = await received('booking.created', b.id);
    assert.ok(created.ok, 'signed');
    assert.deepEqual(
      Object.keys(created.data)
        .filter((k) => MEETING_FIELDS.includes(k))
        .sort(),
      MEETING_FIELDS.filter((f) => f !== 'previous_status').sort(),
    );
    assert.equal(created.data.lead_id, b.leadId);
    assert.equal(created.data.starts_at, b.start.toISOString());
    const pending = await received('meeting.pending', b.id);
    for (const f of MEETING_FIELDS) assert.ok(f in pending.data, `meeting.pending has ${f}`);
    assert.equal(pending.data.status, 'PENDING');
    assert.equal(pending.data.provider, 'manual');
    await asOperator(services, confirmAppointment, { appointmentId: b.id });
    const booked = await received('meeting.booked', b.id);
    for (const f of MEETING_FIELDS) assert.ok(f in booked.data, `meeting.booked has ${f}`);
    assert.equal(booked.data.status, 'CONFIRMED');
    assert.equal(booked.data.previous_status, 'PENDING');
  });

  it('meeting.cancelled when a person declines, with the reason', async () => {
    const b = await book();
    await received('meeting.pending', b.id);
    await asOperator(services, declineAppointment, { appointmentId: b.id });
    const cancelled = await received('meeting.cancelled', b.id);
    for (const f of MEETING_FIELDS) assert.ok(f in cancelled.data, `meeting.cancelled has ${f}`);
    assert.equal(cancelled.data.previous_status, 'PENDING');
    assert.ok(typeof cancelled.data.reason === 'string');
  });
});
