import * as yup from 'yup';
import { DomainError } from '../kernel/errors';
import { describe } from '../kernel/json-schema';
import { LEAD_STATUSES } from '../leads';
import { CAMPAIGN_CHANNELS, type Step } from './entities';
import { PLACEHOLDERS, unknownPlaceholders } from './templates';

const MAX_STEPS = 10;
const MAX_DELAY_HOURS = 24 * 90;

export const campaignIdField = describe(
  yup
    .string()
    .typeError('${path} must be a UUID')
    .uuid('${path} must be a UUID')
    .required('${path} is required'),
  'The campaign id.',
);

/** The input of the operations that name a campaign and nothing else. */
export const campaignIdInput = yup.object({ campaignId: campaignIdField });

/** A template whose placeholders all exist; an unknown one is refused, naming it. */
const template = (max: number, what: string) =>
  describe(
    yup
      .string()
      .trim()
      .max(max, `\${path} must be at most ${max} characters`)
      .test('placeholders', (value, ctx) => {
        const unknown = value ? unknownPlaceholders(value) : [];
        return unknown.length === 0
          ? true
          : ctx.createError({
              message: `\${path} has an unknown placeholder {${unknown[0]}}; known: ${PLACEHOLDERS.map((p) => `{${p}}`).join(', ')}`,
            });
      }),
    `${what} Placeholders: ${PLACEHOLDERS.map((p) => `{${p}}`).join(', ')}.`,
  );

const step = yup.object({
  subject: template(200, 'Email only: the subject line.'),
  body: template(5_000, 'The message.').required('${path} is required').min(1, '${path} must not be empty'),
  delay_hours: describe(
    yup
      .number()
      .typeError('${path} must be a number')
      .integer('${path} must be a whole number of hours')
      .min(0, '${path} must be 0 or more')
      .max(MAX_DELAY_HOURS, `\${path} must be at most ${MAX_DELAY_HOURS}`)
      .default(0),
    'Hours after the previous step (the first step: after launch).',
  ),
});

export const stepsField = describe(
  yup
    .array()
    .of(step)
    .min(1, 'steps must have at least one step')
    .max(MAX_STEPS, `steps must have at most ${MAX_STEPS} steps`),
  'The messages, in order; each waits delay_hours after the previous one.',
);

export const audienceField = describe(
  yup
    .object({
      statuses: describe(
        yup.array().of(
          yup
            .string()
            .oneOf([...LEAD_STATUSES], `\${path} must be one of ${LEAD_STATUSES.join(', ')}`)
            .required(),
        ),
        'Only leads in these statuses.',
      ),
      sources: describe(
        yup.array().of(yup.string().trim().max(200).required()),
        'Only leads from these sources.',
      ),
      created_since: describe(
        yup.string().datetime('${path} must be an ISO 8601 date-time'),
        'Only leads that arrived at or after this time.',
      ),
    })
    .noUnknown('${unknown} is not an audience filter'),
  'Which leads it reaches, fixed when it launches; every part given must match. Leads without an address on the channel are left out.',
);

export const windowField = describe(
  yup
    .object({
      weekdays: describe(
        yup
          .array()
          .of(
            yup
              .number()
              .integer()
              .min(1, 'weekdays are 1 (Monday) to 7')
              .max(7, 'weekdays are 1 (Monday) to 7')
              .required(),
          )
          .min(1, '${path} must name at least one day')
          .default([1, 2, 3, 4, 5]),
        'Days it may send on, 1 (Monday) to 7 (Sunday).',
      ),
      start_hour: describe(
        yup.number().integer().min(0).max(23).default(9),
        'First hour it may send (0-23).',
      ),
      end_hour: describe(
        yup
          .number()
          .integer()
          .min(1)
          .max(24)
          .default(18)
          .test(
            'after-start',
            '${path} must be after start_hour',
            (v, ctx) => v > (ctx.parent as { start_hour: number }).start_hour,
          ),
        'Hour it stops (1-24, exclusive).',
      ),
    })
    .noUnknown('${unknown} is not a sending window field'),
  "When messages may leave, in the workspace's time zone (default: weekdays 9:00 to 18:00).",
);

export const campaignFields = {
  name: describe(
    yup.string().trim().min(1, 'name must not be empty').max(200, 'name must be at most 200 characters'),
    'What it is called.',
  ),
  channel: describe(
    yup.string().oneOf([...CAMPAIGN_CHANNELS], `channel must be one of ${CAMPAIGN_CHANNELS.join(', ')}`),
    'email or sms.',
  ),
  audience: audienceField,
  steps: stepsField,
  window: windowField,
  daily_cap: describe(
    yup
      .number()
      .typeError('daily_cap must be a number')
      .integer('daily_cap must be a whole number')
      .min(1)
      .max(100_000),
    'The most messages it sends in one day (default 500).',
  ),
};

/** SMS has no subject: a step that gives one is refused, naming it. */
export function checkSteps(channel: string, steps: Step[]) {
  const i = steps.findIndex((s) => s.subject !== undefined && s.subject !== '');
  if (channel === 'sms' && i >= 0)
    throw new DomainError('invalid_request', `steps[${i}].subject is for email campaigns only.`, {
      field: `steps[${i}].subject`,
    });
}
