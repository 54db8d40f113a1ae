import * as yup from 'yup';
import { describe } from '../../kernel/json-schema';
import { WRITE } from '../../kernel/operation';
import { LEADS_WRITE } from '../../leads';
import { AUTHENTICITIES } from '../../kernel/channels';

/**
 * What every report operation is: the service itself acting for the inbound route (never a key), in the
 * workspace whose route it reached; a report seen twice changes nothing more.
 */
export const REPORT_OPERATION = {
  requirement: LEADS_WRITE,
  reach: 'workspace' as const,
  operatorOnly: true,
  ...WRITE,
  idempotent: true,
};

/** What every report about an email of ours gives: which email, to whom, and whether it is authenticated. */
export const reportFields = {
  originalMessageId: describe(
    yup.string().trim().max(1_000).required('originalMessageId is required'),
    'The Message-ID of the email the report is about.',
  ),
  recipient: describe(
    yup.string().trim().lowercase().max(320),
    'The recipient the report names; a report naming another than the email went to changes nothing.',
  ),
  authenticity: describe(
    yup
      .string()
      .oneOf([...AUTHENTICITIES], `authenticity must be one of ${AUTHENTICITIES.join(', ')}`)
      .default('unverified'),
    "The report's verdict: only a verified one (its sender's domain proven) acts.",
  ),
};
