import * as yup from 'yup';
import { DomainError } from '../kernel/errors';
import { describe } from '../kernel/json-schema';
import { LEAD_STATUSES } from '../leads';
import { AGENT_TYPES, REVIEW_LEVELS, type Agent } from './entities';

/** The caps a workspace may set; a limit above them (or of zero) is refused, naming it. */
const LIMIT_CAPS = { per_run: 200, per_day: 1_000, per_lead_per_week: 3 } as const;
export const DEFAULT_LIMITS = { per_run: 25, per_day: 100, per_lead_per_week: 1 } as const;

/**
 * What no surface accepts for an agent: agents write from the service's versioned templates, never
 * from a model, prompt or budget the workspace chooses. Named here so the refusal says why.
 */
const FORBIDDEN_SETTINGS = [
  'model',
  'temperature',
  'top_p',
  'max_tokens',
  'token_budget',
  'system_prompt',
  'prompt',
  'instructions',
  'persona',
];

export const agentIdField = describe(
  yup
    .string()
    .typeError('${path} must be a UUID')
    .uuid('${path} must be a UUID')
    .required('${path} is required'),
  'The agent id.',
);

/** The input of the operations that name an agent and nothing else. */
export const agentIdInput = yup.object({ agentId: agentIdField });

export const draftIdField = describe(
  yup
    .string()
    .typeError('${path} must be a UUID')
    .uuid('${path} must be a UUID')
    .required('${path} is required'),
  'The draft id.',
);

/** Who sent or discarded a draft. */
export const decidedByField = describe(
  yup.string().trim().min(1).max(200, 'by must be at most 200 characters'),
  'Who decided (an email), for the record; the operator when absent.',
);

const limit = (name: keyof typeof LIMIT_CAPS, what: string) =>
  describe(
    yup
      .number()
      .typeError(`limits.${name} must be a number`)
      .integer(`limits.${name} must be a whole number`)
      .min(1, `limits.${name} must be at least 1 (a limit of zero would never act)`)
      .max(LIMIT_CAPS[name], `limits.${name} must be at most ${LIMIT_CAPS[name]}`),
    `${what} (1 to ${LIMIT_CAPS[name]}; default ${DEFAULT_LIMITS[name]}).`,
  );

const TIME = /^([01][0-9]|2[0-3]):([0-5][0-9])$/;

/**
 * A weekly cadence: days and a time of day, in the workspace's time zone. With at least one day it
 * fires every week, so a cadence that never fires cannot be written.
 */
export const cadenceField = describe(
  yup
    .object({
      days: describe(
        yup
          .array()
          .typeError('cadence.days must be a list of weekdays')
          .of(
            yup
              .number()
              .typeError('cadence.days are numbers, 1 (Monday) to 7 (Sunday)')
              .integer('cadence.days are 1 (Monday) to 7 (Sunday)')
              .min(1, 'cadence.days are 1 (Monday) to 7 (Sunday)')
              .max(7, 'cadence.days are 1 (Monday) to 7 (Sunday)')
              .required(),
          )
          .min(1, 'cadence.days must name at least one day: a cadence with none never fires')
          .test('unique', 'cadence.days names a day twice', (v) => !v || new Set(v).size === v.length)
          .required('cadence.days is required'),
        'Days it runs on, 1 (Monday) to 7 (Sunday): [1,2,3,4,5] is weekdays.',
      ),
      time: describe(
        yup
          .string()
          .matches(TIME, 'cadence.time must be HH:MM on a 24-hour clock, e.g. 09:00')
          .required('cadence.time is required'),
        "Time of day it runs, HH:MM in the workspace's time zone.",
      ),
    })
    .noUnknown('${unknown} is not a cadence field (days, time)')
    .default(undefined),
  "When it runs: { days: [1..7], time: 'HH:MM' } in the workspace's time zone.",
);

const names = (what: string) =>
  yup.array().of(yup.string().trim().min(1).max(200, `${what} are at most 200 characters`).required());

export const sourcesField = describe(
  yup
    .object({
      lead_statuses: describe(
        yup.array().of(
          yup
            .string()
            .oneOf([...LEAD_STATUSES], `\${path} must be one of ${LEAD_STATUSES.join(', ')}`)
            .required(),
        ),
        'Follow-up: leads in these statuses.',
      ),
      lead_sources: describe(names('lead sources'), 'Follow-up: leads from these sources (ad forms).'),
      prospect_lists: describe(names('prospect list names'), 'Prospecting: these prospect lists (by name).'),
    })
    .noUnknown('${unknown} is not a source (lead_statuses, lead_sources, prospect_lists)')
    .default(undefined),
  'Where it finds its work: lead statuses and sources (follow-up), or prospect lists (prospecting).',
);

export const limitsField = describe(
  yup
    .object({
      per_run: limit('per_run', 'Messages (or proposals) in one run'),
      per_day: limit('per_day', "Messages in one day, the workspace's day"),
      per_lead_per_week: limit('per_lead_per_week', 'Messages to one lead in seven days'),
    })
    .noUnknown('${unknown} is not a limit (per_run, per_day, per_lead_per_week)')
    .default(undefined),
  'How much it may do: per run, per day, per lead per week.',
);

export const agentFields = {
  name: describe(
    yup.string().trim().min(1, 'name must not be empty').max(200, 'name must be at most 200 characters'),
    'What it is called.',
  ),
  type: describe(
    yup.string().oneOf([...AGENT_TYPES], `type must be one of ${AGENT_TYPES.join(', ')}`),
    'follow_up (chases leads awaiting a reply, from templates) or prospecting (sources prospect lists).',
  ),
  cadence: cadenceField,
  sources: sourcesField,
  limits: limitsField,
  review_level: describe(
    yup.string().oneOf([...REVIEW_LEVELS], `review_level must be one of ${REVIEW_LEVELS.join(', ')}`),
    'draft: its messages wait for a person to send or discard them; send: they are sent at once.',
  ),
};

/** What an agent may do, as create and configure take it. */
export const settingsFields = {
  cadence: agentFields.cadence,
  sources: agentFields.sources,
  limits: agentFields.limits,
  review_level: agentFields.review_level,
};

/** Sources of the other type's kind are refused, naming the field. */
export const checkSourcesFit = (a: Pick<Agent, 'type' | 'sources'>) => {
  const s = a.sources;
  if (a.type === 'follow_up' && s.prospect_lists?.length)
    throw new DomainError('invalid_request', 'sources.prospect_lists are for prospecting agents.', {
      field: 'sources.prospect_lists',
    });
  if (a.type === 'prospecting' && (s.lead_statuses?.length || s.lead_sources?.length))
    throw new DomainError(
      'invalid_request',
      'sources.lead_statuses and sources.lead_sources are for follow-up agents.',
      { field: s.lead_statuses?.length ? 'sources.lead_statuses' : 'sources.lead_sources' },
    );
};

/**
 * An agent's input: the listed fields only. A model, temperature, prompt or budget is refused naming
 * the field and why; any other unknown field is refused naming it.
 */
export const agentInput = <S extends yup.ObjectShape>(shape: S, operation: string) =>
  yup
    .object(shape)
    .test('no-model-settings', (value, ctx) => {
      const bad = value && Object.keys(value).find((k) => FORBIDDEN_SETTINGS.includes(k.toLowerCase()));
      return bad
        ? ctx.createError({
            path: bad,
            message: `${bad} cannot be set: agents write from the service's versioned templates, never from a model, prompt or budget chosen by the workspace`,
          })
        : true;
    })
    .noUnknown(true, (p: { unknown: string }) => `${p.unknown} is not a field of ${operation}`);
