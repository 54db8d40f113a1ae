import type { KeyObject } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type * as yup from 'yup';
import type { Actor } from './actor';
import type { Data } from './data';
import type { Effect } from './effect';
import type { DomainError } from './errors';
import type { EventData, EventType } from './event-catalogue';
import type { Subject } from './events';
import type { Gate } from './gate';
import type { JsonSchema } from './json-schema';
import type { Requirement } from './permissions';

/**
 * Starts the durable job that carries `subject` on past the request that made it (a quote's expiry, a
 * parked request's wait, a campaign's sending), under the id derived from it: a port of the domain,
 * which Temporal workflows implement in infra/temporal/. A job already started under that id is left
 * alone, so a relay pass or a retry after a crash may offer the same record again.
 */
export type StartJob<T> = (subject: T) => Promise<void>;

/** One run of a webhook delivery: a resend starts the delivery again under a new generation. */
export type DeliveryRun = { id: string; generation: number };

/**
 * What the durable jobs are called where people meet them (the Temporal Web UI, the audit log). The
 * domain shows some by name (a sourcing run's workflow, an agent's schedule) and audits a job's work
 * under its name, but builds none: infra/temporal/workflow-ids.ts does.
 */
export type JobNames = {
  approval: (approvalId: string) => string;
  message: (messageId: string) => string;
  campaign: (campaignId: string) => string;
  sourcingRun: (runId: string) => string;
  agentSchedule: (agentId: string) => string;
};

/** A person's decision on a booking, carried to its workflow; `by` names who decided (for the audit). */
export type BookingDecision = {
  action: 'confirm' | 'decline' | 'cancel';
  reason?: string;
  by: Record<string, unknown>;
};

/**
 * Bookings' workflows: one starts once a booking commits, and a person's decision reaches it as an
 * Update, which answers once the calendar and the record agree.
 */
export type BookingDesk = {
  start: StartJob<string>;
  decide: (appointmentId: string, decision: BookingDecision) => Promise<unknown>;
};

/**
 * The ports a process hands its operations, built whole by its composition root (the API's, the
 * worker's and the admin CLI's in infra/services.ts, the tests' in test/helpers/services.ts) and put
 * together with the areas by `composeServices` (domain/registry.ts): a part left out is a compile
 * error, not a user's surprise.
 */
export type Ports = {
  /** Where a key's gated call waits for a person, and where a person's decision reaches it. */
  approvals: Gate;
  /**
   * Wakes a campaign's workflow after its status changed (a pause, a resume) so it acts at once; the
   * workflow would notice on its own at its next batch or check.
   */
  campaigns: { wake: (campaignId: string, change: 'pause' | 'resume') => Promise<void> };
  /** Keys unsubscribe links (derived from SECRETS_KEY), and seals mail to members. */
  secretsKey: Buffer;
  /** Where people reach the service (PUBLIC_URL): a parked request's answer links to its console page; mail to members names the console. */
  publicUrl: string;
  /**
   * An operator's decisions on parked requests (`approval approve|reject --as`, break-glass): whether
   * the process recording a decision accepts them (APPROVALS_OPERATOR_DECIDE; always outside
   * production), and the operating system user and host this process runs as, which a decision it
   * sends records as the operator's assertion.
   */
  operatorDecisions: { allowed: boolean; osUser: string; host: string };
  /** Where bookings are handed to their workflows, and a person's decision on one reaches it. */
  appointments: BookingDesk;
  /**
   * What Temporal says of an agent's schedule (an operator may pause it in the Web UI); undefined where
   * nobody can ask (a test without Temporal).
   */
  agents: {
    schedule: (
      agentId: string,
    ) => Promise<{ exists: boolean; paused: boolean; note: string | null; next_runs: string[] } | undefined>;
  };
  /**
   * Cancels timers whose reason is gone, after the commit that says so; a timer left running wakes,
   * finds nothing to do and ends.
   */
  cancelTimers: {
    /** A paid invoice's due-date timer, which would remind the customer once it is overdue. */
    invoiceDue: (invoiceId: string) => Promise<void>;
  };
  /** What the durable jobs are called, for the views and audit rows that name one. */
  jobNames: JobNames;
  /** The process clock, unless a test dates things in the past or future. */
  clock?: () => Date;
  /**
   * How outbound mail leaves and is signed, for the DNS records an operator publishes: the DKIM
   * domain, selector and public key (DKIM_*), the sender (MAIL_FROM), the return path's domain
   * (MAIL_RETURN_PATH_DOMAIN) and the SMTP relay's host (SMTP_URL); absent where no DKIM key is configured.
   */
  mailSigning?: {
    domain: string;
    selector: string;
    publicKey: KeyObject;
    from: string;
    returnPath: string;
    relay: string;
  };
  /**
   * Mailbox providers' feedback-loop domains (MAIL_FEEDBACK_DOMAINS) whose DKIM-signed complaints prove
   * themselves; empty, a complaint needs a return path of ours like a bounce.
   */
  mailFeedbackDomains: string[];
  /** Webhook endpoints' secrets and targets, and the cancelling of their deliveries' workflows. */
  webhooks: {
    secretsKey: Buffer;
    allowPrivateTargets: boolean;
    /** Cancels these runs' workflows after a commit; the rows already say they must not run. */
    cancelWorkflows: (deliveries: DeliveryRun[]) => Promise<void>;
  };
};

declare const composed: unique symbol;

/**
 * What operations may need beyond their transaction: the process's ports and its database, made only
 * by `composeServices` (the brand), which connects the areas first.
 */
export type Services = Ports & { db: DataSource; readonly [composed]: true };

/**
 * Where an operation acts:
 * - `workspace`: inside one workspace: the key's own, or the one the operator names;
 * - `record`: on a record named by id: a key reaches only its own workspace's records (others are
 *   "not found"); the operator reaches any, and the operation learns the workspace from the record;
 * - `none`: outside any workspace (creating one); the operator door only.
 */
type Reach = 'workspace' | 'record' | 'none';

/** What an operation sees while it runs: the transaction, the actor, and how to record effects. */
export type OperationContext = {
  /**
   * The rows the call may reach: its transaction (a plain manager for reads), confined to its
   * workspace. Areas read and write through their repositories, built from it.
   */
  data: Data;
  actor: Actor;
  /** The workspace the call is confined to; undefined only for the operator acting on a record by id. */
  workspaceId: string | undefined;
  services: Services;
  /** Appends an event to the outbox inside the transaction. */
  emit: <T extends EventType>(
    workspaceId: string,
    type: T,
    subject: Subject,
    data: EventData<T>,
  ) => Promise<string>;
  /** Details for the operation's audit row, and the workspace it touched (when the actor did not say). */
  audit: (workspaceId: string | null, details: Record<string, unknown>) => void;
  /** Runs after commit, never on rollback (for example cancelling workflows of cancelled deliveries). */
  afterCommit: (effect: () => Promise<void>) => void;
  /**
   * For an approved request's run: the effect the person approved, its bound parts already checked
   * against the record under the run's lock. An operation reaches only the members it names (a
   * campaign's launch fixes only the approved leads that still match its audience).
   */
  approved?: Effect;
};

/**
 * What an area says of itself where a door groups operations by area: its section of the REST
 * reference (an OpenAPI tag, named and described here, so a new area adds nothing to `api/`).
 */
export type Area = { tag: string; description: string };

/**
 * The operation as a REST route under `/api/v1`. Path parameters and, for GET, the query string fill
 * the input; for POST and PATCH the JSON body does. An operation with `idempotency` takes its key from
 * the `Idempotency-Key` header.
 */
export type RestBinding<O> = {
  method: 'get' | 'post' | 'patch' | 'delete';
  /** Koa style, under /api/v1: `/leads/:id`. */
  path: string;
  /** The OpenAPI operationId (stable for generated clients). */
  operationId: string;
  /** The area it belongs to: its section (tag) of the OpenAPI document. */
  area: Area;
  /** Path parameters that fill an input field of another name (`{ id: 'leadId' }`). */
  params?: Record<string, string>;
  /** The success status for an answer; 200 when absent. */
  status?: (output: O) => number;
  /** What a 200 means (OpenAPI); `Done.` when absent. */
  success?: string;
  /** The answers besides success and the common refusals, with what each means (OpenAPI). */
  answers?: Partial<Record<201 | 404 | 409, string>>;
};

/**
 * The operation as an admin CLI command, `npm run -s admin -- <group> <command> --flags`. Flags arrive
 * as text and map onto the input; `--workspace` is the workspace the operator names, never an input.
 */
export type AdminBinding<O> = {
  /** `group command`, e.g. `key create`. */
  command: string;
  flags?: (f: Record<string, string>) => Record<string, unknown>;
  /** Reshapes the answer for the terminal (a list without its envelope; text is printed as it is). */
  present?: (output: O) => unknown;
};

/** A flag holding a list, `a,b, c` → ['a', 'b', 'c']; absent stays absent, so validation says it is missing. */
export const flagList = (value: string | undefined) =>
  value === undefined
    ? undefined
    : value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);

/**
 * The families of routes that carry no API key: each is a path prefix with its own rate limit and its
 * own answer for a path under it that matches nothing (`api/public/`).
 */
export type PublicFamily = 'unsubscribe' | 'quote_page' | 'hooks';

/**
 * A route without an API key that proves itself another way (an unsubscribe link's token, a
 * provider's signature) and runs the operation as the service itself, audited as door `public`.
 */
export type PublicRoute = {
  method: 'get' | 'post';
  /** Koa style, from the root: `/quotes/:token`. */
  path: string;
  family: PublicFamily;
  /**
   * The request's audit action when it is not the operation's name: a route that runs one of several
   * operations (a provider's webhook), or a page that only asks before the operation runs.
   */
  action?: string;
};

/** Which doors offer an operation. The activity that runs an approved request runs any gated one. */
type Doors<O> = {
  rest?: RestBinding<O>;
  /** Offered to the assistant as a tool named after the operation. */
  mcp?: true;
  admin?: AdminBinding<O>;
  /** The routes without an API key that run it (`api/public/` answers each one). */
  public?: readonly PublicRoute[];
  /**
   * A signed-in member may run it from the console (`api/console/`) with their live role, an
   * operator-only operation included: the application's settings a workspace admin runs alone.
   */
  console?: true;
};

/** The one definition of an operation, shared by every door: REST, MCP, the admin CLI and approved actions. */
export type Operation<S extends yup.AnyObjectSchema = yup.AnyObjectSchema, O = unknown> = {
  /** `area.verb`: the audit action and the assistant's tool name. */
  name: string;
  /** A short human title ("Set a lead's status"). */
  title: string;
  /** What it does, written so a model (and a person) can decide when to call it. */
  description: string;
  /** What the caller gets back, in a sentence (the output schema says it exactly). */
  returns: string;
  requirement: Requirement;
  reach: Reach;
  /**
   * Only the operator door may run it (identity and workspace management), and the console when it
   * says `doors.console` (a member whose live role meets the requirement).
   */
  operatorOnly?: boolean;
  /** The input, with a description on every field; validation, OpenAPI and tool schemas all come from it. */
  input: S;
  /** The answer, as JSON Schema (2020-12): the tool's outputSchema and the REST response body. */
  output: JsonSchema;
  doors: Doors<O>;
  /** Reshapes raw input before validation (for example trimming a JSON body's strings). */
  prepare?: (raw: unknown) => unknown;
  /** False for reads: no transaction, no audit row of their own (the door audits the request). */
  changes: boolean;
  /**
   * Its change is made by the Temporal workflow it hands the call to (a decision on a parked request);
   * the workflow's activities commit and audit it, so the runner opens no transaction of its own.
   */
  inWorkflow?: true;
  /**
   * It runs these registered operations in order, each in its own transaction with its own audit row
   * (details, then status, then a note): the runner opens no transaction for it, and a refused later
   * step leaves the earlier ones applied. Its `run` calls them through the runner as its actor.
   */
  steps?: readonly AnyOperation[];
  /** It removes or overwrites something a person cannot simply undo. */
  destructive: boolean;
  /** Calling it again with the same input changes nothing more. */
  idempotent: boolean;
  /** It reaches beyond this service (sends a message to a person, calls another system). */
  openWorld?: boolean;
  /** It must wait for a person's approval before a key's call runs (the assistant door parks it). */
  gated: boolean;
  /**
   * For an operation gated only for some calls: whether this call, on the record as it stands, waits
   * for a person (configuring a running agent waits when it widens it). Absent: every key's call of a
   * gated operation waits. `lock` holds the record for the rest of the transaction, so the answer
   * cannot change before the call runs.
   */
  gatedWhen?: (input: yup.InferType<S>, data: Data, opts: { lock: boolean }) => Promise<boolean>;
  /**
   * For a gated operation: what the call will do, read from its target (held when `lock`), as the
   * approver sees it. Taken as the call parks and again under the approved run's lock: a bound part
   * that differs refuses the run and nothing happens. `count` asks for what is counted too (an
   * audience's size and its members, for the approver); the check against a snapshot compares bound
   * parts only.
   */
  effect?: (input: yup.InferType<S>, data: Data, opts: { lock: boolean; count: boolean }) => Promise<Effect>;
  /**
   * Replays the first answer for the same caller and key within 24 hours; `field` is the input field
   * holding the key (REST takes it from the `Idempotency-Key` header), `remember` says which answers are
   * kept (a refusal that committed nothing worth replaying is not).
   */
  idempotency?: { field: string; remember: (output: O) => boolean };
  /**
   * An answer that is a refusal although its work committed (a suppressed intake records the touch):
   * every door answers the error, and a replay answers it again.
   */
  refusal?: (output: O) => DomainError | undefined;
  /**
   * A plain-language sentence for one call, as an approver reads it ("Disconnect Google Calendar from
   * Acme"); `look` (the call's data) lets it name records rather than ids, and a gated call's `effect`
   * lets it say what the approver approves ("... to 1,240 people").
   */
  summary: (input: yup.InferType<S>, look?: Data, effect?: Effect) => string | Promise<string>;
  /**
   * For a gated operation: what can be refused before a person is asked (an agent with no sources),
   * so a request that could only fail is never parked. It throws the refusal; `run` checks again.
   */
  precondition?: (input: yup.InferType<S>, look: Data) => Promise<void>;
  run: (ctx: OperationContext, input: yup.InferType<S>) => Promise<O>;
};

/** What every read says about itself: it changes nothing, so it destroys nothing, repeats safely and needs no approval. */
export const READ_ONLY = { changes: false, destructive: false, idempotent: true, gated: false } as const;

/**
 * What a change says about itself unless it says otherwise: nothing a person cannot undo, not safe to
 * repeat blindly, no approval. Spread it, then state what differs (`...WRITE, idempotent: true`).
 */
export const WRITE = { changes: true, destructive: false, idempotent: false, gated: false } as const;

/** Typed identity: infers the input and output types of a definition. */
export const defineOperation = <S extends yup.AnyObjectSchema, O>(op: Operation<S, O>): Operation<S, O> => op;

/** Any operation, whatever its input and output (the registry's element type). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- inputs are contravariant; the runner re-validates
export type AnyOperation = Operation<any, any>;

const closedInputs = new WeakMap<yup.AnyObjectSchema, yup.AnyObjectSchema>();

/**
 * The operation's input refusing any field it does not name, a model's `temperature` or
 * `system_prompt` included; the refusal names the field. Schemas that already refuse keep their message.
 */
export function closedInput(op: AnyOperation): yup.AnyObjectSchema {
  const input = op.input as yup.AnyObjectSchema;
  const known = closedInputs.get(input);
  if (known) return known;
  const refuses = input.describe().tests.some((t) => t.name === 'noUnknown');
  const closed = refuses
    ? input
    : input.noUnknown(true, (p: { unknown: string }) => `${p.unknown} is not a field of ${op.name}`);
  closedInputs.set(input, closed);
  return closed;
}
