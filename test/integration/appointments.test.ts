import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createAppointmentActivities } from '../../activities/appointment';
import { bookAppointment } from '../../domain/appointments/operations/book';
import { cancelAppointment } from '../../domain/appointments/operations/cancel';
import { confirmAppointment } from '../../domain/appointments/operations/confirm';
import { declineAppointment } from '../../domain/appointments/operations/decline';
import { markNoShow } from '../../domain/appointments/operations/mark-no-show';
import { getAppointment } from '../../domain/appointments/operations/get';
import { listAppointments } from '../../domain/appointments/operations/list';
import { bookingDesk } from '../../infra/temporal/appointments';
import { appointmentWorkflowId } from '../../infra/temporal/workflow-ids';
import { addConnection } from '../../domain/connections/operations/add';
import type { Services } from '../../domain/kernel/operation';
import { createLead } from '../../domain/leads/operations/create';
import { createLogger } from '../../infra/logger';
import { startRadicale, type RadicaleServer } from '../../tooling/radicale';
import { freshDatabase, type TestDatabase } from '../helpers/db';
import { asOperator, refusal, workspaceWithKey } from '../helpers/fixtures';
import { count, eventsFor, intakeBody } from '../helpers/leads';
import { timeSkippingEnvironment } from '../helpers/time-skipping';
import { workflowCode } from '../helpers/workflow-code';
import { testServices } from '../../tooling/services';

const HOUR = 3_600_000;
const at = (hoursAhead: number) => new Date(Date.now() + hoursAhead * HOUR).toISOString();
const MEETING_FIELDS = [
  'booking_id',
  'lead_id',
  'provider',
  'status',
  'previous_status',
  'starts_at',
  'ends_at',
];

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('appointments against a real CalDAV server (Radicale) and Temporal (time-skipping)', () => {
  let env: TestWorkflowEnvironment;
  let t: TestDatabase;
  let radicale: RadicaleServer;
  let calendarUrl: string;
  let services: Services;
  let worker: Worker;
  let running: Promise<void>;
  let withCalendar: string;
  let withoutCalendar: string;
  const auth = () => ({
    authorization: `Basic ${Buffer.from(`${radicale.username}:${radicale.password}`).toString('base64')}`,
  });

  before(async () => {
    env = await timeSkippingEnvironment();
    t = await freshDatabase();
    radicale = await startRadicale(createLogger('radicale', 'warn'));
    calendarUrl = await radicale.createCalendar('sales');
    const taskQueue = `appointments-${process.pid}`;
    const secretsKey = randomBytes(32);
    services = testServices(t.db, {
      appointments: bookingDesk(t.db, () => Promise.resolve(env.client), taskQueue),
      webhooks: { secretsKey, allowPrivateTargets: true, cancelWorkflows: async () => undefined },
    });
    worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      ...workflowCode(),
      activities: createAppointmentActivities(testServices(t.db, { secretsKey })),
    });
    running = worker.run();
    withCalendar = (await workspaceWithKey(t.db)).workspace.id;
    withoutCalendar = (await workspaceWithKey(t.db)).workspace.id;
    const connection = await asOperator(
      services,
      addConnection,
      {
        system: 'caldav',
        calendar_url: calendarUrl,
        username: radicale.username,
        password: radicale.password,
      },
      { workspaceId: withCalendar },
    );
    assert.equal(connection.calendar_url, calendarUrl);
    assert.ok(!JSON.stringify(connection).includes(radicale.password), 'the password is never shown');
  });
  after(async () => {
    worker?.shutdown();
    await running?.catch(() => undefined);
    await env?.teardown();
    await radicale?.stop();
    await t?.drop();
  });

  const newLead = async (workspaceId: string) =>
    (
      await asOperator(
        services,
        createLead,
        { ...intakeBody(), idempotency_key: randomUUID() },
        { workspaceId },
      )
    ).data!.id;
  const book = (workspaceId: string, input: Record<string, unknown>) =>
    asOperator(services, bookAppointment, input, { workspaceId });
  const settled = (id: string, status: string) =>
    until(`appointment ${id} ${status}`, async () => {
      const a = await asOperator(services, getAppointment, { appointmentId: id });
      return a.status === status ? a : undefined;
    });
  const onCalendar = async (id: string) =>
    (await fetch(`${calendarUrl}${id}.ics`, { headers: auth() })).status === 200;
  const blockSlot = async (start: string, end: string) => {
    const uid = randomUUID();
    const ics = `BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\nUID:${uid}\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:${start.replace(/[-:]/g, '').replace(/\.\d{3}/, '')}\r\nDTEND:${end.replace(/[-:]/g, '').replace(/\.\d{3}/, '')}\r\nSUMMARY:Busy\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n`;
    const res = await fetch(`${calendarUrl}${uid}.ics`, {
      method: 'PUT',
      headers: { ...auth(), 'content-type': 'text/calendar' },
      body: ics,
    });
    assert.equal(res.status, 201);
  };
  const lead = (id: string) =>
    t.db
      .query<{ status: string; needs_attention: boolean }[]>(
        `SELECT status, needs_attention FROM leads WHERE id = $1`,
        [id],
      )
      .then((r) => r[0]!);
  const eventOf = async (leadId: string, type: string) => {
    const e = (await eventsFor(t.db, leadId)).filter((x) => x.type === type).at(-1);
    assert.ok(e, `${type} was emitted`);
    return e.data;
  };

  it('a free slot: the event is written on the calendar, the booking confirmed and the lead BOOKED', async () => {
    const leadId = await newLead(withCalendar);
    const booked = await book(withCalendar, {
      leadId,
      starts_at: at(48),
      ends_at: at(49),
      note: 'Call link',
    });
    assert.equal(booked.status, 'REQUESTED');
    const confirmed = await settled(booked.id, 'CONFIRMED');
    assert.equal(confirmed.on_calendar, true);
    assert.ok(await onCalendar(booked.id), 'the event is on the calendar, UID = booking id');
    assert.equal((await lead(leadId)).status, 'BOOKED');
    const created = await eventOf(leadId, 'booking.created');
    for (const f of MEETING_FIELDS.filter((f) => f !== 'previous_status')) assert.ok(f in created, f);
    assert.equal(created.status, 'REQUESTED');
    const meeting = await eventOf(leadId, 'meeting.booked');
    for (const f of MEETING_FIELDS) assert.ok(f in meeting, f);
    assert.deepEqual(
      [meeting.booking_id, meeting.provider, meeting.status, meeting.previous_status],
      [booked.id, 'caldav', 'CONFIRMED', 'REQUESTED'],
    );
    assert.equal((await eventOf(leadId, 'lead.status_changed')).status, 'BOOKED');

    // Cancelled by a person: recorded with its reason, then the event leaves the calendar.
    const cancelled = await asOperator(services, cancelAppointment, {
      appointmentId: booked.id,
      reason: 'The lead asked to move it.',
    });
    assert.equal(cancelled.status, 'CANCELLED');
    await until('the event removed', async () => ((await onCalendar(booked.id)) ? undefined : true));
    const gone = await eventOf(leadId, 'meeting.cancelled');
    for (const f of MEETING_FIELDS) assert.ok(f in gone, f);
    assert.deepEqual(
      [gone.status, gone.previous_status, gone.reason],
      ['CANCELLED', 'CONFIRMED', 'The lead asked to move it.'],
    );
  });

  it('a busy slot stays PENDING for a person, who confirms it: then it is written on the calendar', async () => {
    const leadId = await newLead(withCalendar);
    const [start, end] = [at(72), at(73)];
    await blockSlot(at(71.5), at(72.5));
    const booked = await book(withCalendar, { leadId, starts_at: start, ends_at: end });
    const pending = await settled(booked.id, 'PENDING');
    assert.match(pending.reason!, /busy/);
    assert.equal(await onCalendar(booked.id), false);
    assert.equal((await lead(leadId)).needs_attention, true);
    const meeting = await eventOf(leadId, 'meeting.pending');
    assert.deepEqual([meeting.status, meeting.previous_status], ['PENDING', 'REQUESTED']);

    const confirmed = await asOperator(services, confirmAppointment, {
      appointmentId: booked.id,
    });
    assert.equal(confirmed.status, 'CONFIRMED');
    assert.ok(await onCalendar(booked.id), 'confirmed only once the event is on the calendar');
    assert.deepEqual(await lead(leadId), { status: 'BOOKED', needs_attention: false });
    assert.equal((await eventOf(leadId, 'meeting.booked')).previous_status, 'PENDING');
    const again = await refusal(asOperator(services, confirmAppointment, { appointmentId: booked.id }));
    assert.equal(again.code, 'conflict');
  });

  it('a busy slot declined by a person: meeting.cancelled with the reason, nothing on the calendar', async () => {
    const leadId = await newLead(withCalendar);
    await blockSlot(at(96), at(97));
    const booked = await book(withCalendar, { leadId, starts_at: at(96), ends_at: at(97) });
    await settled(booked.id, 'PENDING');
    const declined = await asOperator(services, declineAppointment, {
      appointmentId: booked.id,
      reason: 'Fully booked that day.',
    });
    assert.equal(declined.status, 'DECLINED');
    const e = await eventOf(leadId, 'meeting.cancelled');
    assert.deepEqual(
      [e.status, e.previous_status, e.reason],
      ['DECLINED', 'PENDING', 'Fully booked that day.'],
    );
    assert.equal(await onCalendar(booked.id), false);
    assert.equal((await lead(leadId)).needs_attention, false);
  });

  it('without a calendar it waits for a person, and the start-time timer declines it unconfirmed', async () => {
    const leadId = await newLead(withoutCalendar);
    const booked = await book(withoutCalendar, { leadId, starts_at: at(24 * 5), ends_at: at(24 * 5 + 1) });
    const pending = await settled(booked.id, 'PENDING');
    assert.equal(pending.provider, 'manual');
    const startedAt = Date.now();
    // Awaiting the result lets the time-skipping server jump five days to the booking's start.
    const status = await env.client.workflow.getHandle(appointmentWorkflowId(booked.id)).result();
    assert.equal(status, 'DECLINED');
    assert.ok(Date.now() - startedAt < 30_000, 'five days skipped, not waited');
    const e = await eventOf(leadId, 'meeting.cancelled');
    assert.deepEqual([e.status, e.previous_status, e.provider], ['DECLINED', 'PENDING', 'manual']);
    assert.match(String(e.reason), /Nobody confirmed it before its start/);
    const late = await refusal(asOperator(services, confirmAppointment, { appointmentId: booked.id }));
    assert.equal(late.code, 'conflict');
  });

  it('a no-show only after the start, with meeting.no_show', async () => {
    const leadId = await newLead(withCalendar);
    const booked = await book(withCalendar, { leadId, starts_at: at(120), ends_at: at(121) });
    await settled(booked.id, 'CONFIRMED');
    const early = await refusal(asOperator(services, markNoShow, { appointmentId: booked.id }));
    assert.equal(early.code, 'conflict');
    const later = { ...services, clock: () => new Date(Date.now() + 121 * HOUR) };
    const noShow = await asOperator(later, markNoShow, { appointmentId: booked.id });
    assert.equal(noShow.status, 'NO_SHOW');
    const e = await eventOf(leadId, 'meeting.no_show');
    for (const f of MEETING_FIELDS) assert.ok(f in e, f);
    assert.deepEqual([e.status, e.previous_status], ['NO_SHOW', 'CONFIRMED']);
  });

  it("reads a time without an offset in the workspace's zone, or in the one given", async () => {
    const leadId = await newLead(withoutCalendar);
    const year = new Date().getUTCFullYear() + 1;
    const paris = await book(withoutCalendar, {
      leadId,
      starts_at: `${year}-01-15T10:00`,
      ends_at: `${year}-01-15T11:00`,
    });
    assert.equal(paris.starts_at, `${year}-01-15T09:00:00.000Z`, 'Europe/Paris in winter is UTC+1');
    const ny = await book(withoutCalendar, {
      leadId,
      starts_at: `${year}-07-15T10:00`,
      ends_at: `${year}-07-15T10:30`,
      timezone: 'America/New_York',
    });
    assert.equal(ny.starts_at, `${year}-07-15T14:00:00.000Z`, 'New York in summer is UTC-4');
    const listed = await asOperator(services, listAppointments, { leadId }, { workspaceId: withoutCalendar });
    assert.deepEqual(
      listed.data.map((a) => a.id),
      [paris.id, ny.id],
      'soonest first',
    );
  });

  it('bad input is refused naming the field, and nothing is stored', async () => {
    const leadId = await newLead(withoutCalendar);
    const before = await count(t.db, 'appointments');
    const cases: [Record<string, unknown>, string, string][] = [
      [{ leadId, starts_at: at(-1), ends_at: at(1) }, 'invalid_request', 'starts_at'],
      [{ leadId, starts_at: at(3), ends_at: at(2) }, 'invalid_request', 'ends_at'],
      [{ leadId, starts_at: at(3), ends_at: at(11.5) }, 'invalid_request', 'ends_at'],
      [{ leadId, starts_at: 'tomorrow', ends_at: at(2) }, 'invalid_request', 'starts_at'],
      [{ leadId, starts_at: at(3), ends_at: at(4), timezone: 'Mars/Olympus' }, 'invalid_request', 'timezone'],
      [{ leadId: randomUUID(), starts_at: at(3), ends_at: at(4) }, 'not_found', ''],
    ];
    for (const [input, code, field] of cases) {
      const err = await refusal(book(withoutCalendar, input));
      assert.equal(err.code, code, JSON.stringify(input));
      if (field) assert.equal(err.details.field, field, err.message);
    }
    assert.equal(await count(t.db, 'appointments'), before);
  });

  it('CalDAV credentials: only for a caldav connection, and the URL must pass the target policy', async () => {
    const ws = (await workspaceWithKey(t.db)).workspace.id;
    const strict = { ...services, webhooks: { ...services.webhooks, allowPrivateTargets: false } };
    const cases: [Services, Record<string, unknown>, string][] = [
      [services, { system: 'hubspot', password: 'x' }, 'password'],
      [services, { system: 'caldav', calendar_url: calendarUrl, username: 'u' }, 'password'],
      [strict, { system: 'caldav', calendar_url: calendarUrl, username: 'u', password: 'p' }, 'calendar_url'],
    ];
    for (const [s, input, field] of cases) {
      const err = await refusal(asOperator(s, addConnection, input, { workspaceId: ws }));
      assert.equal(err.details.field, field, err.message);
    }
  });
});
