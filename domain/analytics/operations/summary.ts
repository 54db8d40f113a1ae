import * as yup from 'yup';
import { ACTION_KINDS } from '../../agents';
import { DomainError } from '../../kernel/errors';
import { describe } from '../../kernel/json-schema';
import { READ_ONLY, defineOperation } from '../../kernel/operation';
import type { Requirement } from '../../kernel/permissions';
import { integer, nullable, number, object, string } from '../../kernel/shapes';
import { LEAD_STATUSES, workspaceTimezone } from '../../leads';
import { analyticsIn } from '../repository/figures';

const ANALYTICS_READ: Requirement = { scope: 'analytics:read', minRole: 'viewer' };
const DEFAULT_DAYS = 30;
const MAX_DAYS = 366;
const DAY_MS = 86_400_000;

const date = (field: string) =>
  describe(
    yup
      .string()
      .matches(/^\d{4}-\d{2}-\d{2}$/, `${field} must be a date, YYYY-MM-DD`)
      .test('real', `${field} must be a real date`, (v) => v === undefined || isRealDate(v)),
    field === 'from'
      ? "First day of the period, in the workspace's time zone (default: 29 days before `to`)."
      : "Last day of the period, inclusive, in the workspace's time zone (default: today).",
  );

const isRealDate = (v: string) => {
  const d = new Date(`${v}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === v;
};

/** Today's date where the workspace is. */
const todayIn = (timezone: string) =>
  new Intl.DateTimeFormat('en-CA', {
    timeZone: timezone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(new Date());
const shift = (d: string, days: number) =>
  new Date(Date.parse(`${d}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
const daysBetween = (a: string, b: string) =>
  Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / DAY_MS);

const rate = (n: number, of: number) => (of === 0 ? null : Math.round((n / of) * 10_000) / 10_000);
const count = integer({ minimum: 0 });
const counts = (keys: readonly string[]) => object(Object.fromEntries(keys.map((k) => [k, count])));
const conversion = object({ count, rate: nullable(number({ minimum: 0, maximum: 1 })) });

export const analyticsSummary = defineOperation({
  name: 'analytics.summary',
  title: 'Summary of a period',
  description:
    "Figures for a period in the workspace's time zone (default: the last 30 days; at most 366): the leads that arrived in it by status (now) and by source; how many of them reached BOOKED (or WON) and WON; the median time to our first message to them; campaign messages sent in it (sent, delivered, bounced, failed, skipped); and what AI agents did in it.",
  returns:
    '{ period: { from, to, timezone }, leads: { total, by_status, by_source }, conversion: { booked, won }, first_response: { median_seconds, responded }, campaigns, agents }.',
  requirement: ANALYTICS_READ,
  reach: 'workspace',
  ...READ_ONLY,
  input: yup.object({ from: date('from'), to: date('to') }),
  output: object(
    {
      period: object({
        from: string({ format: 'date' }),
        to: string({ format: 'date' }),
        timezone: string(),
      }),
      leads: object({
        total: count,
        by_status: counts(LEAD_STATUSES),
        by_source: { type: 'object', additionalProperties: count },
      }),
      conversion: object({ booked: conversion, won: conversion }),
      first_response: object({ median_seconds: nullable(number({ minimum: 0 })), responded: count }),
      campaigns: counts(['sent', 'delivered', 'bounced', 'failed', 'skipped']),
      agents: counts(ACTION_KINDS),
    },
    { title: 'AnalyticsSummary' },
  ),
  doors: {
    mcp: true,
    admin: { command: 'analytics summary', flags: (f) => ({ from: f.from, to: f.to }) },
  },
  summary: (i) => `Summarise ${i.from ?? 'the last 30 days'}${i.to ? ` to ${i.to}` : ''}`,
  run: async (ctx, i) => {
    const timezone = await workspaceTimezone(ctx.data, ctx.workspaceId!);
    const to = i.to ?? (i.from ? shift(i.from, DEFAULT_DAYS - 1) : todayIn(timezone));
    const from = i.from ?? shift(to, -(DEFAULT_DAYS - 1));
    if (daysBetween(from, to) < 0)
      throw new DomainError('invalid_request', 'to must be on or after from.', { field: 'to' });
    if (daysBetween(from, to) + 1 > MAX_DAYS)
      throw new DomainError('invalid_request', `the period is at most ${MAX_DAYS} days.`, { field: 'to' });
    const r = await analyticsIn(ctx.data).summary(from, to, timezone);
    return {
      period: { from, to, timezone },
      leads: {
        total: r.leads,
        by_status: Object.fromEntries(LEAD_STATUSES.map((s) => [s, r.by_status?.[s] ?? 0])),
        by_source: r.by_source ?? {},
      },
      conversion: {
        booked: { count: r.booked, rate: rate(r.booked, r.leads) },
        won: { count: r.won, rate: rate(r.won, r.leads) },
      },
      first_response: {
        median_seconds: r.median_first_response_s === null ? null : Math.round(r.median_first_response_s),
        responded: r.responded,
      },
      campaigns: r.campaign,
      agents: Object.fromEntries(ACTION_KINDS.map((k) => [k, r.agent_actions?.[k] ?? 0])),
    };
  },
});
