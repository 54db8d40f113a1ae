import { randomUUID } from 'node:crypto';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import type { testApp } from './api';
import { bearer } from './fixtures';

export const consent = { given: true, at: '2026-11-20T09:30:00Z' };

let n = 0;
/** A valid intake body with a unique email; override any field. */
export const intakeBody = (over: Record<string, unknown> = {}) => ({
  first_name: 'Ana',
  last_name: 'Lima',
  email: `ana.lima.${++n}.${randomUUID().slice(0, 8)}@example.com`,
  source: 'facebook-spring-offer',
  consent,
  ...over,
});

export const postLead = (
  app: ReturnType<typeof testApp>,
  key: string,
  body: unknown,
  idem: string = randomUUID(),
) =>
  request(app)
    .post('/api/v1/leads')
    .set(bearer(key))
    .set('Idempotency-Key', idem)
    .send(body as object);

export type EventRow = { id: string; type: string; created_at: Date; data: Record<string, unknown> };

/** Outbox rows about one lead, oldest first. */
export const eventsFor = (db: DataSource, leadId: string) =>
  db.query<EventRow[]>(
    `SELECT id, type, created_at, data FROM events WHERE data->>'subject_id' = $1 ORDER BY seq`,
    [leadId],
  );

export const count = async (db: DataSource, table: string, where = 'true', params: unknown[] = []) =>
  Number((await db.query<[{ n: string }]>(`SELECT count(*) AS n FROM ${table} WHERE ${where}`, params))[0].n);
