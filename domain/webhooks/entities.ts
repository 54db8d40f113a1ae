import { clockDefault, entity, inWorkspace, oneOfCheck, references, uuidKey } from '../kernel/entity';

export const DELIVERY_STATUSES = ['PENDING', 'SUCCEEDED', 'FAILED', 'EXHAUSTED', 'CANCELLED'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
export const ENDPOINT_STATUSES = ['ACTIVE', 'DISABLED', 'DELETED'] as const;
/** The signature headers an endpoint's deliveries carry (docs/webhooks.md#signing-schemes). */
export const SIGNING_SCHEMES = ['service', 'standard', 'both'] as const;
export type SigningScheme = (typeof SIGNING_SCHEMES)[number];

export type Endpoint = {
  id: string;
  workspace_id: string;
  url: string;
  event_types: string[];
  owner_user_id: string | null;
  status: (typeof ENDPOINT_STATUSES)[number];
  disabled_reason: string | null;
  /** AES-256-GCM (iv | tag | ciphertext) under SECRETS_KEY; the secret is never stored in clear. */
  secret_ciphertext: Buffer;
  signing_scheme: SigningScheme;
  /** The secret a rotation replaced, encrypted as the current one; it also signs until it expires. */
  previous_secret_ciphertext: Buffer | null;
  previous_secret_expires_at: Date | null;
  consecutive_failures: number;
  created_at: Date;
  updated_at: Date;
};
export const EndpointEntity = entity<Endpoint>({
  name: 'Endpoint',
  tableName: 'webhook_endpoints',
  columns: {
    id: uuidKey('webhook_endpoints'),
    workspace_id: { type: 'uuid' },
    url: { type: 'text' },
    event_types: { type: 'text', array: true },
    owner_user_id: { type: 'uuid', nullable: true },
    status: { type: 'text', default: 'ACTIVE' },
    disabled_reason: { type: 'text', nullable: true },
    secret_ciphertext: { type: 'bytea' },
    signing_scheme: { type: 'text', default: 'service' },
    previous_secret_ciphertext: { type: 'bytea', nullable: true },
    previous_secret_expires_at: { type: 'timestamptz', nullable: true },
    consecutive_failures: { type: 'integer', default: 0 },
    created_at: clockDefault,
    updated_at: clockDefault,
  },
  relations: {
    ...inWorkspace('webhook_endpoints'),
    owner: references('webhook_endpoints', 'owner_user_id', 'User', { cascade: false, nullable: true }),
  },
  checks: [
    { name: 'webhook_endpoints_event_types_check', expression: '(cardinality(event_types) > 0)' },
    oneOfCheck('webhook_endpoints', 'status', ENDPOINT_STATUSES),
    oneOfCheck('webhook_endpoints', 'signing_scheme', SIGNING_SCHEMES),
    {
      name: 'webhook_endpoints_previous_secret_check',
      expression: '((previous_secret_ciphertext IS NULL) = (previous_secret_expires_at IS NULL))',
    },
  ],
  indices: [
    { name: 'webhook_endpoints_workspace', columns: ['workspace_id'], where: "(status = 'ACTIVE'::text)" },
  ],
});

export type Delivery = {
  id: string;
  workspace_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  status: DeliveryStatus;
  attempts: number;
  response_status: number | null;
  next_attempt_at: Date | null;
  delivered_at: Date | null;
  /** Bumped by a resend: each generation is a workflow of its own (webhook-delivery:<id>:r<n>). */
  generation: number;
  /** Set when this generation's first attempt is recorded; the relay starts every PENDING row without it. */
  workflow_started_at: Date | null;
  /**
   * An attempt being sent (issue 57): set before its request leaves, cleared by its record. The token
   * names one run of the attempt; a re-run finds it live until `sending_until` and sends nothing.
   */
  sending_token: string | null;
  sending_attempt: number | null;
  /** The worker sending it (Temporal's worker identity, host and pid). */
  sending_by: string | null;
  sending_until: Date | null;
  created_at: Date;
};
export const DeliveryEntity = entity<Delivery>({
  name: 'Delivery',
  tableName: 'webhook_deliveries',
  columns: {
    id: uuidKey('webhook_deliveries'),
    workspace_id: { type: 'uuid' },
    endpoint_id: { type: 'uuid' },
    event_id: { type: 'text' },
    event_type: { type: 'text' },
    status: { type: 'text', default: 'PENDING' },
    attempts: { type: 'integer', default: 0 },
    response_status: { type: 'integer', nullable: true },
    next_attempt_at: { type: 'timestamptz', nullable: true },
    delivered_at: { type: 'timestamptz', nullable: true },
    generation: { type: 'integer', default: 0 },
    workflow_started_at: { type: 'timestamptz', nullable: true },
    sending_token: { type: 'uuid', nullable: true },
    sending_attempt: { type: 'integer', nullable: true },
    sending_by: { type: 'text', nullable: true },
    sending_until: { type: 'timestamptz', nullable: true },
    created_at: clockDefault,
  },
  relations: {
    ...inWorkspace('webhook_deliveries'),
    endpoint: references('webhook_deliveries', 'endpoint_id', 'Endpoint'),
    event: references('webhook_deliveries', 'event_id', 'Event'),
  },
  uniques: [{ name: 'webhook_deliveries_event_id_endpoint_id_key', columns: ['event_id', 'endpoint_id'] }],
  // The same statuses, in the order the migration wrote them (the check is compared as written).
  checks: [
    oneOfCheck('webhook_deliveries', 'status', ['PENDING', 'FAILED', 'SUCCEEDED', 'EXHAUSTED', 'CANCELLED']),
    {
      name: 'webhook_deliveries_sending_check',
      expression:
        '((((sending_token IS NULL) = (sending_attempt IS NULL)) AND ((sending_token IS NULL) = (sending_by IS NULL))) AND ((sending_token IS NULL) = (sending_until IS NULL)))',
    },
  ],
  indices: [
    // The relay's round robin per workspace (repository/upkeep.ts).
    {
      name: 'webhook_deliveries_unstarted',
      columns: ['workspace_id', 'created_at'],
      where: "((workflow_started_at IS NULL) AND (status = 'PENDING'::text))",
    },
    {
      name: 'webhook_deliveries_waiting',
      columns: ['endpoint_id'],
      where: "(status = ANY (ARRAY['PENDING'::text, 'FAILED'::text]))",
    },
    // Newest first (DESC; the migration made it).
    {
      name: 'webhook_deliveries_workspace',
      columns: ['workspace_id', 'created_at', 'id'],
      synchronize: false,
    },
  ],
});

export type Attempt = {
  delivery_id: string;
  number: number;
  started_at: Date;
  duration_ms: number;
  response_status: number | null;
  error_class: string | null;
};
export const AttemptEntity = entity<Attempt>({
  name: 'Attempt',
  tableName: 'webhook_attempts',
  columns: {
    delivery_id: { type: 'uuid', primary: true, primaryKeyConstraintName: 'webhook_attempts_pkey' },
    number: { type: 'integer', primary: true, primaryKeyConstraintName: 'webhook_attempts_pkey' },
    started_at: { type: 'timestamptz' },
    duration_ms: { type: 'integer' },
    response_status: { type: 'integer', nullable: true },
    error_class: { type: 'text', nullable: true },
  },
  relations: { delivery: references('webhook_attempts', 'delivery_id', 'Delivery') },
});

export type Notification = {
  id: string;
  workspace_id: string;
  user_id: string | null;
  kind: string;
  message: string;
  data: unknown;
  created_at: Date;
};
export const NotificationEntity = entity<Notification>({
  name: 'Notification',
  tableName: 'notifications',
  columns: {
    id: uuidKey('notifications'),
    workspace_id: { type: 'uuid' },
    user_id: { type: 'uuid', nullable: true },
    kind: { type: 'text' },
    message: { type: 'text' },
    data: { type: 'jsonb', default: () => "'{}'" },
    created_at: clockDefault,
  },
  relations: {
    ...inWorkspace('notifications'),
    user: references('notifications', 'user_id', 'User', { cascade: false, nullable: true }),
  },
  indices: [{ name: 'notifications_workspace', columns: ['workspace_id', 'created_at'], synchronize: false }],
});
