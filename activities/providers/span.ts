import type { ProviderResult } from '../../domain/conversations';
import { failSpan, inSpan, SpanKind } from '../../domain/kernel/tracing';

/**
 * A hand-over to a provider (SMTP, the SMS API) as a client span of the sending's trace. It names the
 * provider's host and the outcome, never the recipient: contact details stay out of traces as out of logs.
 */
export const providerSpan = (
  name: string,
  host: string,
  send: () => Promise<ProviderResult>,
): Promise<ProviderResult> =>
  inSpan(name, { kind: SpanKind.CLIENT, attributes: { 'server.address': host } }, async (span) => {
    const result = await send();
    span.setAttribute('provider.outcome', result.kind);
    if (result.kind !== 'sent') failSpan(span, result.kind);
    return result;
  });
