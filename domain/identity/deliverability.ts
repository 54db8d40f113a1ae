/**
 * When a running campaign pauses itself to protect the sender's reputation: over at least `min_sends`
 * sends, proven hard bounces above `max_bounce_percent` or spam complaints above
 * `max_complaint_percent` of them. A workspace may set its own within `DELIVERABILITY_BOUNDS`: never
 * looser than what mailbox providers hold against a sender (Gmail and Yahoo refuse bulk senders whose
 * complaint rate reaches 0.3%), nor so tight that a handful of sends decides.
 */
export type DeliverabilityLimits = {
  /** Sends (messages handed to the provider) before the rates are judged. */
  min_sends: number;
  /** Hard bounces, as a percentage of sends, above which the campaign pauses. */
  max_bounce_percent: number;
  /** Spam complaints, as a percentage of sends, above which the campaign pauses. */
  max_complaint_percent: number;
};

export const DELIVERABILITY_DEFAULTS: DeliverabilityLimits = {
  min_sends: 100,
  max_bounce_percent: 5,
  max_complaint_percent: 0.3,
};

/** [least, most] each setting may be. */
export const DELIVERABILITY_BOUNDS: Record<keyof DeliverabilityLimits, readonly [number, number]> = {
  min_sends: [50, 1_000],
  max_bounce_percent: [1, 10],
  max_complaint_percent: [0.05, 0.3],
};

/** A workspace's limits: what it set, the defaults for the rest. */
export const deliverabilityOf = (w: { deliverability: Partial<DeliverabilityLimits> | null } | null) => ({
  ...DELIVERABILITY_DEFAULTS,
  ...w?.deliverability,
});
